"""`EmbeddingModel` over a GGUF embedding model with llama.cpp.

Mean pooling gives one vector per text (llama.cpp's default for many files is one vector
per *token*); rows come back L2-normalised float32 so cosine similarity is a dot product.
Same lifecycle as the chat model: lazy load and every native call on one worker thread,
free after `idle_unload_s`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import llama_cpp
import numpy as np
from llama_cpp import Llama

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.llamacpp.host import (
    NativeHost,
    load_gguf,
    thread_count,
)
from v2c_desktop.core.models.types import ModelCallFailed, ModelInfo, Vectors


def unit_rows(matrix: Vectors) -> Vectors:
    """L2-normalise each row; an all-zero row stays zero rather than becoming NaN."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: Vectors = (matrix / norms).astype(np.float32)
    return unit


class LlamaCppEmbeddingModel:
    """Embeddings from a GGUF file; `info.dimensions` is filled in from `n_embd` on load.

    Texts longer than `context_window` tokens are truncated by llama.cpp (the window is
    also the batch size, so any single text up to it fits one decode).
    """

    def __init__(
        self,
        path: Path,
        *,
        model_id: str | None = None,
        context_window: int = 512,
        n_threads: int | None = None,
        idle_unload_s: float = 600,
    ) -> None:
        self.path = Path(path)
        model_id = model_id or f"llamacpp/{self.path.stem}"
        self.info = ModelInfo(
            id=model_id,
            kind="embed",
            runtime="llamacpp",
            label=self.path.stem,
            context_window=context_window,
            dimensions=None,
            local=True,
        )
        self.n_threads = n_threads
        self._host: NativeHost[Llama] = NativeHost(
            model_id=model_id, load=self._load, idle_unload_s=idle_unload_s
        )

    @property
    def loaded(self) -> bool:
        return self._host.loaded

    @property
    def loads(self) -> int:
        return self._host.loads

    def _load(self) -> Llama:
        window = self.info.context_window
        threads = thread_count(self.n_threads)
        return load_gguf(
            Llama,
            self.path,
            self.info.id,
            n_ctx=window,
            n_batch=window,  # a whole text up to the window must fit one batch
            n_ubatch=window,
            embedding=True,
            pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
            n_threads=threads,
            n_threads_batch=threads,
        )

    @staticmethod
    def _embed_on_worker(host: NativeHost[Llama], texts: list[str]) -> Vectors:
        llm = host.native()
        dims = llm.n_embd()
        if not texts:
            return np.zeros((0, dims), dtype=np.float32)
        # An empty text has no tokens, and decoding an empty sequence corrupts llama.cpp's
        # memory (a crash at exit); a single space embeds "nothing" harmlessly.
        raw = llm.embed([text or " " for text in texts], normalize=False)
        matrix = np.asarray(raw, dtype=np.float32).reshape(len(texts), dims)
        return unit_rows(matrix)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalised float32 row per text, shape (len(texts), n_embd)."""
        batch = list(texts)
        try:
            vectors = await self._host.run(lambda host: self._embed_on_worker(host, batch))
        except (V2CError, ModelCallFailed):
            raise
        except Exception as error:
            raise ModelCallFailed(
                self.info.id, "error", f"{type(error).__name__}: {error}"
            ) from error
        if self.info.dimensions is None:
            self.info = replace(self.info, dimensions=int(vectors.shape[1]))
        return vectors

    async def aclose(self) -> None:
        await self._host.aclose()
