"""The default embedder against the real int8 ONNX model and tokenizer (no mocks)."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tokenizers import Tokenizer

from tests.conftest import REPO, corpus_path
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.installed.catalog import app_models_dir
from v2c_desktop.core.models.onnx import embedder as embedder_module
from v2c_desktop.core.models.onnx.embedder import INFO, TOKENIZE_WINDOW, OnnxEmbedder
from v2c_desktop.core.models.onnx.minilm import load_session, onnx_file, tokenizer_file
from v2c_desktop.core.models.types import EmbeddingModel

NEURAL = "How do neural networks learn?"
MIXED_LENGTHS = [
    "Hi.",
    "word " * 300,  # truncated at 256 pieces, so it sorts first
    "The quick brown fox jumps over the lazy dog.",
    "gradient descent " * 40,
    "ok",
    "Bitcoin is a digital currency that no bank or government issues.",
    "Eigenvectors stay on their own span when a linear transformation is applied.",
]


@pytest.fixture(scope="module")
def embedder() -> Iterator[OnnxEmbedder]:
    model = OnnxEmbedder()
    yield model
    asyncio.run(model.aclose())


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))  # rows are unit length


def test_info_and_protocol() -> None:
    model = OnnxEmbedder()
    assert isinstance(model, EmbeddingModel)
    assert model.info == INFO
    assert (INFO.id, INFO.kind, INFO.runtime, INFO.dimensions) == (
        "onnx/all-minilm-l6-v2-int8w7",
        "embed",
        "onnx",
        384,
    )
    assert INFO.context_window == 256 and INFO.capable and INFO.local
    assert not model.loaded  # loading waits for the first text


def test_shapes_dtype_and_unit_norm(embedder: OnnxEmbedder) -> None:
    vectors = embedder.embed_sync(["one sentence", "and another, a little longer one"])
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_list_gives_zero_rows(embedder: OnnxEmbedder) -> None:
    for vectors in (embedder.embed_sync([]), asyncio.run(embedder.embed([]))):
        assert vectors.shape == (0, 384)
        assert vectors.dtype == np.float32


def test_a_bare_string_is_refused(embedder: OnnxEmbedder) -> None:
    with pytest.raises(TypeError):
        embedder.embed_sync("not a list")


def test_deterministic_across_calls_instances_and_thread_counts(embedder: OnnxEmbedder) -> None:
    first = embedder.embed_sync(MIXED_LENGTHS)
    assert np.array_equal(first, embedder.embed_sync(MIXED_LENGTHS))
    one_thread = OnnxEmbedder(threads=1)
    assert np.array_equal(one_thread.embed_sync(MIXED_LENGTHS), first)


def test_a_vector_depends_on_its_text_only(embedder: OnnxEmbedder) -> None:
    """One text per run: the same words embed the same alone, in a crowd, as a query."""
    together = embedder.embed_sync(MIXED_LENGTHS)
    for row, text in enumerate(MIXED_LENGTHS):
        assert np.array_equal(together[row], embedder.embed_sync([text])[0])


def test_a_vector_does_not_depend_on_the_other_texts_of_the_call(embedder: OnnxEmbedder) -> None:
    """Whatever else a call holds (other lengths, repeats, another order), a text's row is
    the same: a user's vectors never depend on which texts happened to share an import."""
    alone = {text: embedder.embed_sync([text])[0] for text in MIXED_LENGTHS}
    crowds = [
        list(reversed(MIXED_LENGTHS)),
        ["ok", "word " * 300, "ok", *MIXED_LENGTHS[:3]],
        [f"filler sentence number {i} about transformers" for i in range(40)] + ["ok"],
    ]
    for crowd in crowds:
        for text, row in zip(crowd, embedder.embed_sync(crowd), strict=True):
            if text in alone:
                assert np.array_equal(row, alone[text]), text


def test_many_texts_on_every_runner_match_one_thread() -> None:
    texts = [f"{i} eigenvectors, gradients and coins " * (1 + i % 7) for i in range(64)]
    side_by_side = OnnxEmbedder(threads=3).embed_sync(texts)
    assert np.array_equal(side_by_side, OnnxEmbedder(threads=1).embed_sync(texts))


def test_pooling_matches_a_hand_computed_reference(embedder: OnnxEmbedder) -> None:
    text = "Gradient descent nudges every weight downhill on the cost surface."
    tokenizer = Tokenizer.from_file(str(tokenizer_file()))
    tokenizer.no_padding()
    ids = np.array([tokenizer.encode(text).ids], dtype=np.int64)
    session = load_session(onnx_file())  # the embedder's own session options
    feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": 0 * ids}
    hidden = session.run(["last_hidden_state"], feeds)[0][0]  # (tokens, 384), no padding
    reference = hidden.mean(axis=0)
    reference /= np.linalg.norm(reference)
    np.testing.assert_allclose(embedder.embed_sync([text])[0], reference, atol=1e-5)


def test_semantic_sanity_with_plain_sentences(embedder: OnnxEmbedder) -> None:
    """The 0.1 margin holds on any CPU: the measured gap is 0.57, and vectors differ between
    CPUs only by float32 rounding (the integer kernels are exact, test_embedder_numerics)."""
    query, bread, market = embedder.embed_sync(
        [
            "How do I bake bread at home?",
            "Knead the dough, let it rise, then bake it in a hot oven.",
            "The stock market fell sharply after the interest rate announcement.",
        ]
    )
    assert cosine(query, bread) > cosine(query, market) + 0.1


@pytest.mark.corpus
def test_semantic_sanity_with_corpus_sentences(embedder: OnnxEmbedder) -> None:
    def sentence(video: str, needle: str) -> str:
        path = corpus_path(f"transcripts/3blue1brown/{video}/sentence_timings.en.json")
        rows = json.loads(path.read_text(encoding="utf-8"))
        return str(next(text for text, _start, _end in rows if needle in text))

    descent = sentence("2017_gradient-descent", "idea of gradient descent")
    bitcoin = sentence("2017_bitcoin", "fully digital currency")
    query, near, far = embedder.embed_sync([NEURAL, descent, bitcoin])
    assert cosine(query, near) > cosine(query, far) + 0.1  # measured: 0.62 apart


def test_long_text_is_truncated_at_256_word_pieces(embedder: OnnxEmbedder) -> None:
    # "river" is one word piece: 254 of them plus [CLS] and [SEP] fill the 256 exactly.
    long, cut, short = embedder.embed_sync(
        [" ".join(["river"] * 5000), " ".join(["river"] * 254), " ".join(["river"] * 100)]
    )
    np.testing.assert_allclose(long, cut, atol=1e-6)
    assert np.abs(long - short).max() > 1e-4  # the cut really is at 256, not earlier
    prose = " ".join(f"sentence {i} talks about eigenvalues and vectors." for i in range(720))
    assert len(prose.split()) >= 5000
    (row,) = embedder.embed_sync([prose])
    assert abs(float(np.linalg.norm(row)) - 1.0) < 1e-5


def test_async_embeds_from_two_tasks_concurrently(embedder: OnnxEmbedder) -> None:
    first = [NEURAL, "a cat sat on the mat", *MIXED_LENGTHS]
    second = ["Bitcoin transactions are grouped into blocks.", "ok", *reversed(MIXED_LENGTHS)]
    expected = embedder.embed_sync(first), embedder.embed_sync(second)

    async def both() -> list[np.ndarray]:
        model = OnnxEmbedder()
        try:
            return list(await asyncio.gather(model.embed(first), model.embed(second)))
        finally:
            await model.aclose()

    got = asyncio.run(both())
    for vectors, want in zip(got, expected, strict=True):
        np.testing.assert_allclose(vectors, want, atol=1e-5)


async def until_unloaded(model: OnnxEmbedder) -> None:
    """Poll until the idle timer has dropped the session. The deadline is only there so a
    timer that never fires fails the test instead of hanging it; no machine is that slow."""
    try:
        async with asyncio.timeout(60):
            while model.loaded:
                await asyncio.sleep(0.01)
    except TimeoutError:
        pytest.fail("still loaded a minute after its 0.05 s idle time: nothing unloaded it")


def test_idle_unload_then_reuse() -> None:
    async def go() -> None:
        model = OnnxEmbedder(idle_unload_s=0.05)
        try:
            before = await model.embed([NEURAL])
            assert model.loaded
            await until_unloaded(model)  # dropped after the idle time
            again = await model.embed([NEURAL])
            assert model.loaded
            np.testing.assert_allclose(again, before, atol=1e-6)
        finally:
            await model.aclose()
        assert not model.loaded
        with pytest.raises(RuntimeError):
            await model.embed(["closed"])

    asyncio.run(go())


def test_cancelling_stops_before_the_next_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not timed: every text the worker runs goes through the real `run_text`, so a
    counter wrapped around it shows how far the cancelled job got."""
    texts = [f"text number {i} about eigenvectors, gradients and coins " * 4 for i in range(3000)]
    ran = 0
    counting = threading.Lock()
    under_way = threading.Event()
    real_run_text = embedder_module.run_text

    def counted(session: Any, ids: list[int]) -> Any:
        nonlocal ran
        vector = real_run_text(session, ids)
        with counting:
            ran += 1
        under_way.set()
        return vector

    async def go() -> int:
        model = OnnxEmbedder(threads=2)
        try:
            await model.embed(["warm up"])
            monkeypatch.setattr(embedder_module, "run_text", counted)
            task = asyncio.create_task(model.embed(texts))
            assert await asyncio.to_thread(under_way.wait, 60)  # (60: a hang guard only)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # queued behind the cancelled job on the one worker: it runs once that job ended
            await model.embed(["the worker is free again"])
            return ran
        finally:
            await model.aclose()

    ran = asyncio.run(go())
    # The job stops before its next text: only the texts already running when the cancel
    # came finish, then the follow-up's one. All 3000 would mean the cancel was never seen;
    # a check once per tokenising window instead of per text would run 1024.
    assert 2 <= ran < TOKENIZE_WINDOW, ran


def test_missing_tokenizer_is_a_typed_error(tmp_path: Path) -> None:
    model = OnnxEmbedder(tokenizer_path=tmp_path / "tokenizer.json")
    with pytest.raises(V2CError) as caught:
        model.embed_sync(["x"])
    assert caught.value.code == "not-found"
    assert "tokenizer.json is missing from models/all-minilm-l6-v2" in caught.value.hint

    async def via_async() -> None:
        try:
            await model.embed(["x"])
        finally:
            await model.aclose()

    with pytest.raises(V2CError, match="tokenizer"):
        asyncio.run(via_async())


def test_missing_model_file_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(V2CError) as caught:
        OnnxEmbedder(model_path=tmp_path / "model.onnx").embed_sync(["x"])
    assert caught.value.code == "not-found"
    assert "reinstall v2c" in caught.value.hint
    assert "model-int8w7.onnx" in caught.value.hint


def test_models_dir_beside_the_package_or_in_a_bundle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert app_models_dir() == REPO / "models"
    assert tokenizer_file().is_file()
    (tmp_path / "models").mkdir()
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert app_models_dir() == tmp_path / "models"
