"""Which embedder the registry hands out for the ids settings may name."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.installed.manager import ModelManager
from v2c_desktop.core.models.onnx.embedder import OnnxEmbedder
from v2c_desktop.core.models.registry import DEFAULT_EMBEDDER, ModelRegistry
from v2c_desktop.core.settings import ModelSettings


def registry(tmp_path: Path, **settings: object) -> ModelRegistry:
    manager = ModelManager(tmp_path / "models", ModelManager.default().catalog)
    return ModelRegistry(ModelSettings(**settings), manager)  # type: ignore[arg-type]


def test_the_default_is_the_shipped_onnx_embedder(tmp_path: Path) -> None:
    models = registry(tmp_path, threads=1)
    embedder = models.embedder()
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.info.id == DEFAULT_EMBEDDER == ModelSettings().embed_model
    assert models.embedder(DEFAULT_EMBEDDER) is embedder
    assert embedder.embed_sync(["threads come from settings"]).shape == (1, 384)
    asyncio.run(models.http.aclose())


@pytest.mark.parametrize("old_id", ["onnx/all-minilm-l6-v2", "onnx/all-minilm-l6-v2-qint8"])
def test_settings_saved_with_an_old_embedder_id_get_the_shipped_one(
    tmp_path: Path, old_id: str
) -> None:
    models = registry(tmp_path, embed_model=old_id)
    assert models.embedder().info.id == DEFAULT_EMBEDDER
    asyncio.run(models.http.aclose())


def test_an_unknown_embedder_is_a_typed_error(tmp_path: Path) -> None:
    models = registry(tmp_path)
    with pytest.raises(V2CError) as caught:
        models.embedder("onnx/no-such-model")
    assert caught.value.code == "not-found"
    assert "v2c models list" in caught.value.hint
    asyncio.run(models.http.aclose())
