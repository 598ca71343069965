"""Embeddings from an OpenAI-compatible server, in the same shape as the local ONNX model.

Search compares vectors by dot product, so rows come back L2-normalised float32 whatever
the server sends. Servers may return rows in any order (the spec only promises `index`),
cap how many inputs one request may carry, and refuse empty strings, hence the sorting,
batching and the blank stand-in below.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import httpx
import numpy as np

from ..types import ModelInfo, Vectors
from .errors import bad_response
from .http import Endpoint
from .server import RUNTIME, Cooldowns, OpenAICompatServer, model_id

DEFAULT_BATCH = 64


class OpenAICompatEmbeddingModel:
    """`EmbeddingModel` over `/embeddings`; id `openai-compat/<server.name>/<model>`.

    `dimensions`, when given, is checked against every response; otherwise the first response
    sets it (and `info.dimensions`).
    """

    def __init__(
        self,
        server: OpenAICompatServer,
        model: str,
        *,
        http: httpx.AsyncClient | None = None,
        dimensions: int | None = None,
        batch_size: int = DEFAULT_BATCH,
        cooldowns: Cooldowns | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.server = server
        self.model = model
        self.batch_size = batch_size
        self.info = ModelInfo(
            id=model_id(server, model),
            kind="embed",
            runtime=RUNTIME,
            label=f"{model} ({server.name})",
            dimensions=dimensions,
            local=server.is_local,
        )
        self._owns_http = http is None
        self._http = http if http is not None else httpx.AsyncClient()
        self._endpoint = Endpoint(
            server, self._http, self.info.id, cooldowns if cooldowns is not None else Cooldowns()
        )

    def __repr__(self) -> str:
        return f"OpenAICompatEmbeddingModel({self.info.id!r}, base_url={self.server.shown_url!r})"

    async def embed(self, texts: Sequence[str]) -> Vectors:
        """One L2-normalised float32 row per text, in the order of `texts`."""
        self._endpoint.check_cooldown()
        rows: list[Vectors] = []
        for start in range(0, len(texts), self.batch_size):
            rows.append(await self._embed_batch(texts[start : start + self.batch_size]))
        if not rows:
            return np.zeros((0, self.info.dimensions or 0), dtype=np.float32)
        matrix = np.concatenate(rows).astype(np.float32, copy=False)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        safe = np.where(norms > 0, norms, 1.0)  # an all-zero row stays zero
        return (matrix / safe).astype(np.float32)

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def _embed_batch(self, texts: Sequence[str]) -> Vectors:
        # OpenAI rejects empty inputs; a space embeds as "nothing" on every server
        inputs = [t if t.strip() else " " for t in texts]
        data = await self._endpoint.json(
            "POST",
            "/embeddings",
            lambda: {"model": self.model, "input": inputs},
            what="embeddings",
        )
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list) or len(items) != len(inputs):
            got = len(items) if isinstance(items, list) else "no"
            raise bad_response(
                self.server, self.info.id, f"embeddings sent {got} rows for {len(inputs)} texts"
            )
        ordered = sorted(enumerate(items), key=lambda pair: _index(pair[1], default=pair[0]))
        if [_index(item, default=i) for i, item in ordered] != list(range(len(inputs))):
            raise bad_response(self.server, self.info.id, "embeddings sent wrong row indexes")
        try:
            matrix = np.stack([_vector(item) for _, item in ordered])
        except (TypeError, ValueError) as exc:
            raise bad_response(self.server, self.info.id, f"embeddings: {exc}") from exc
        self._check_dimensions(matrix.shape[1])
        return matrix

    def _check_dimensions(self, dimensions: int) -> None:
        if self.info.dimensions is None:
            self.info = replace(self.info, dimensions=dimensions)
        elif self.info.dimensions != dimensions:
            raise bad_response(
                self.server,
                self.info.id,
                f"embeddings have {dimensions} dimensions, expected {self.info.dimensions}",
            )


def _index(item: Any, *, default: int) -> int:
    index = item.get("index") if isinstance(item, dict) else None
    return index if isinstance(index, int) else default


def _vector(item: Any) -> Vectors:
    """A row as float32: a list of numbers, or base64 little-endian float32."""
    raw = item.get("embedding") if isinstance(item, dict) else None
    if isinstance(raw, str):
        vector = np.frombuffer(base64.b64decode(raw), dtype="<f4").astype(np.float32)
    elif isinstance(raw, list) and raw:
        vector = np.asarray(raw, dtype=np.float32)
    else:
        raise ValueError("a row has no embedding")
    if vector.ndim != 1 or vector.size == 0 or not np.all(np.isfinite(vector)):
        raise ValueError("a row is not a finite vector")
    return vector
