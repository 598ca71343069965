"""Agents are not the user (issue 22): an agent's URLs stay on public hosts, and a local
archive never silently replaces what the library read from the web.

The agent's imports go through `Library.add(agent=...)`, the way the MCP server sends them
to the library's owner; the user's own imports (no `agent`) are not limited. Hosts are
checked before anything is requested: a real caption server on 127.0.0.1 records every hit.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import corpus_path
from tests.unit.importers.web.scripted import CRASHCOURSE_SRT, ScriptedInfoSource, crashcourse_info
from v2c_desktop.cli.main import main
from v2c_desktop.core.domain.imports import BatchResult
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.importers.web.hosts import HostGuard, is_public_address
from v2c_desktop.core.importers.web.settings import WebSettings
from v2c_desktop.core.importers.web_access import WebAccess
from v2c_desktop.core.library import Library
from v2c_desktop.core.settings import AgentSettings, load_settings, settings_from_dict
from v2c_desktop.core.store import open_library

PAGE = "http://93.184.216.34/watch?v=fxZWtc0mYpQ"  # a public literal: nothing is looked up
WATCH = "https://www.youtube.com/watch?v=fxZWtc0mYpQ"
VTT = "WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nthe internal page's secret words\n"


class CaptionServer:
    """A caption track on this machine (an "internal page"), counting the requests it gets."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        hits = self.hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(self.path)
                body = VTT.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/vtt")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/captions.vtt?token=s3cret"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def internal() -> Iterator[CaptionServer]:
    server = CaptionServer()
    yield server
    server.close()


def info_with_track(track_url: str, page: str = PAGE) -> dict[str, Any]:
    """The real Crash Course info dict, its only caption track at `track_url`."""
    info = crashcourse_info()
    info["webpage_url"] = info["original_url"] = page
    info["subtitles"] = {"en": [{"ext": "vtt", "url": track_url, "name": "English"}]}
    info["automatic_captions"] = {}
    return info


def add(
    tmp_path: Path,
    inputs: list[str],
    script: dict[str, Any],
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    agent: AgentSettings | None = None,
    replace_web: bool = False,
) -> BatchResult:
    async def go() -> BatchResult:
        store = open_library(tmp_path / "lib.duckdb")
        web = WebAccess(
            ScriptedInfoSource(script), httpx.AsyncClient(transport=transport), WebSettings()
        )
        library = Library(store, web)
        try:
            return await library.add(inputs, agent=agent, replace_web=replace_web)
        finally:
            await library.aclose()
            store.close()

    return asyncio.run(go())


def only(result: BatchResult) -> dict[str, Any]:
    assert len(result.outcomes) == 1, [o.to_dict() for o in result.outcomes]
    return result.outcomes[0].to_dict("agent")


# -- hosts ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "10.1.2.3", "172.16.0.9", "192.168.1.1", "169.254.169.254", "100.64.0.1",
     "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1"],
)  # fmt: skip
def test_loopback_private_and_link_local_addresses_are_not_public(address: str) -> None:
    assert not is_public_address(ipaddress.ip_address(address))


def test_public_addresses_are_public() -> None:
    for address in ("93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "::ffff:8.8.8.8"):
        assert is_public_address(ipaddress.ip_address(address)), address


def test_a_name_is_refused_when_any_address_it_resolves_to_is_private() -> None:
    async def resolve(host: str, port: int) -> list[Any]:
        assert host == "intranet.example.com" and port == 443
        return [ipaddress.ip_address("93.184.216.34"), ipaddress.ip_address("10.0.0.7")]

    guard = HostGuard(resolve=resolve)
    with pytest.raises(V2CError) as refused:
        asyncio.run(guard.check("https://intranet.example.com/page"))
    error = refused.value
    assert error.code == "bad-request"
    assert "intranet.example.com is a name for the private address 10.0.0.7" in error.message
    assert "agents.allow_private_hosts" in error.hint


def test_local_names_and_literals_are_refused_without_a_lookup() -> None:
    async def resolve(host: str, port: int) -> list[Any]:
        raise AssertionError(f"looked up {host}")

    guard = HostGuard(resolve=resolve)
    for url in ("http://localhost:8080/x", "http://app.localhost/", "http://[::1]/x",
                "http://169.254.169.254/latest/meta-data/"):  # fmt: skip
        with pytest.raises(V2CError, match="which an agent may not reach"):
            asyncio.run(guard.check(url))
    asyncio.run(guard.check("http://93.184.216.34/watch"))  # a public literal passes


def test_through_a_proxy_names_are_left_to_the_proxy() -> None:
    async def resolve(host: str, port: int) -> list[Any]:
        raise AssertionError(f"looked up {host}")

    guard = HostGuard(proxy="http://proxy.example:3128", resolve=resolve)
    asyncio.run(guard.check("https://www.youtube.com/watch?v=x"))  # not looked up here
    with pytest.raises(V2CError, match=r"127\.0\.0\.1 is a loopback address"):
        asyncio.run(guard.check("http://127.0.0.1:5000/token"))


# -- an agent's imports ---------------------------------------------------------------------
def test_an_agents_url_on_this_machine_is_refused_before_it_is_read(tmp_path: Path) -> None:
    token = "http://127.0.0.1:5000/api/token?key=s3cret"
    script = {token: info_with_track("http://93.184.216.34/c.vtt", token)}
    result = add(tmp_path, [token], script, agent=AgentSettings())
    out = only(result)
    assert out["status"] == "failed" and out["error"]["error"] == "bad-request", out
    assert "127.0.0.1 is a loopback address, which an agent may not reach" in out["reason"]


def test_an_agents_caption_track_on_an_internal_host_is_not_fetched(
    tmp_path: Path, internal: CaptionServer
) -> None:
    script = {PAGE: info_with_track(internal.url)}
    out = only(add(tmp_path, [PAGE], script, agent=AgentSettings()))
    assert out["status"] == "failed", out
    assert out["reason"].startswith("refused the caption track: 127.0.0.1 is a loopback")
    assert "agents.allow_private_hosts" in out["error"]["hint"]
    assert internal.hits == []  # refused before any request


def test_the_user_allows_private_hosts_for_agents_in_the_settings(
    tmp_path: Path, internal: CaptionServer
) -> None:
    script = {PAGE: info_with_track(internal.url)}
    allowed = AgentSettings(allow_private_hosts=True)
    assert only(add(tmp_path, [PAGE], script, agent=allowed))["status"] == "added"
    assert len(internal.hits) == 1


def test_the_users_own_import_is_not_limited(tmp_path: Path, internal: CaptionServer) -> None:
    script = {PAGE: info_with_track(internal.url)}
    assert only(add(tmp_path, [PAGE], script))["status"] == "added"
    assert len(internal.hits) == 1


def test_a_redirect_of_the_caption_track_to_a_private_host_is_refused(tmp_path: Path) -> None:
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        if request.url.host == "93.184.216.34":
            return httpx.Response(302, headers={"location": "http://10.1.2.3/secret.vtt"})
        return httpx.Response(200, text=VTT, headers={"content-type": "text/vtt"})

    script = {PAGE: info_with_track("http://93.184.216.34/captions.vtt")}
    transport = httpx.MockTransport(handler)
    out = only(add(tmp_path, [PAGE], script, transport=transport, agent=AgentSettings()))
    assert out["status"] == "failed", out
    assert "a redirect of the caption track: 10.1.2.3 is a private address" in out["reason"]
    assert asked == ["http://93.184.216.34/captions.vtt"]  # the private hop was never asked
    asked.clear()
    user = add(tmp_path / "user", [PAGE], script, transport=transport)  # the user's: followed
    assert only(user)["status"] == "added" and asked[-1] == "http://10.1.2.3/secret.vtt"


def test_agent_settings_are_read_from_the_settings_file(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    assert load_settings(path).agents == AgentSettings([], False)  # nothing allowed by default
    path.write_text(
        json.dumps({"agents": {"allowed_folders": ["~/Videos"], "allow_private_hosts": True}}),
        encoding="utf-8",
    )
    assert load_settings(path).agents == AgentSettings(["~/Videos"], True)
    with pytest.raises(TypeError):
        settings_from_dict({"agents": {"allowed_folders": "/"}})


# -- a local archive never silently replaces a web import -----------------------------------
def _web_import(tmp_path: Path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text=VTT, headers={"content-type": "text/vtt"})

    script = {WATCH: info_with_track("https://www.youtube.com/api/timedtext?v=x", WATCH)}
    out = only(add(tmp_path, [WATCH], script, transport=httpx.MockTransport(handler)))
    assert out["status"] == "added" and out["video_id"] == "youtube:fxZWtc0mYpQ", out


def _archive_claiming_the_id(tmp_path: Path) -> Path:
    """A yt-dlp-style folder whose .info.json claims the web video's id, with other words."""
    folder = tmp_path / "archive"
    folder.mkdir()
    (folder / "talk.info.json").write_text(json.dumps(crashcourse_info()), encoding="utf-8")
    (folder / "talk.en.srt").write_bytes(corpus_path(CRASHCOURSE_SRT).read_bytes())
    return folder


def _words(tmp_path: Path) -> tuple[str, str]:
    async def go() -> tuple[str, str]:
        store = open_library(tmp_path / "lib.duckdb")
        try:
            record = store.get_video("youtube:fxZWtc0mYpQ")
            return record.transcript.segments[0].text, record.transcript.producer
        finally:
            store.close()

    return asyncio.run(go())


def test_a_local_archive_does_not_replace_a_web_import_without_confirmation(
    tmp_path: Path,
) -> None:
    _web_import(tmp_path)
    folder = _archive_claiming_the_id(tmp_path)
    out = only(add(tmp_path, [str(folder)], {}))
    assert out["status"] == "skipped" and out["video_id"] == "youtube:fxZWtc0mYpQ", out
    assert "was imported from the web" in out["reason"]
    assert out["confirm"] == "replace-web"  # what the user may confirm, each face its way
    assert "confirmation" in out["reason"] and "v2c add" not in out["reason"]
    assert _words(tmp_path) == ("the internal page's secret words", "youtube")  # kept

    replaced = only(add(tmp_path, [str(folder)], {}, replace_web=True))
    assert replaced["status"] == "updated", replaced
    words, producer = _words(tmp_path)
    assert words != "the internal page's secret words"
    assert producer.startswith("yt-dlp archive")  # the provenance says where it came from


def test_v2c_add_replace_web_is_the_confirmation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _web_import(tmp_path)
    folder = _archive_claiming_the_id(tmp_path)
    library = str(tmp_path / "lib.duckdb")
    assert main(["--library", library, "add", "--no-index", str(folder)]) == 0
    first = capsys.readouterr().out
    assert "skipped" in first and f"v2c add --replace-web {folder}" in first, first
    assert _words(tmp_path)[1] == "youtube"
    assert main(["--library", library, "add", "--no-index", "--replace-web", str(folder)]) == 0
    assert "updated 1" in capsys.readouterr().out
    assert _words(tmp_path)[1].startswith("yt-dlp archive")


def test_a_local_archive_still_updates_what_it_imported_itself(tmp_path: Path) -> None:
    folder = _archive_claiming_the_id(tmp_path)
    assert only(add(tmp_path, [str(folder)], {}))["status"] == "added"
    srt = folder / "talk.en.srt"
    srt.write_text(
        srt.read_text(encoding="utf-8") + "\n9999\n00:59:00,000 --> 00:59:01,000\nmore\n", "utf-8"
    )
    assert only(add(tmp_path, [str(folder)], {}))["status"] == "updated"


def test_a_page_that_led_yt_dlp_to_a_private_host_is_refused_before_its_captions(
    tmp_path: Path,
) -> None:
    """yt-dlp follows a page's redirects itself: where it ended is checked before anything
    the page offered (its caption track) is read, and the agent hears which hop it was."""
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return httpx.Response(200, text=VTT, headers={"content-type": "text/vtt"})

    landed = info_with_track("http://93.184.216.34/captions.vtt", "http://10.9.8.7/watch")
    out = only(
        add(
            tmp_path,
            [PAGE],
            {PAGE: landed},
            transport=httpx.MockTransport(handler),
            agent=AgentSettings(),
        )
    )
    assert out["status"] == "failed", out
    assert "the page the URL led to: 10.9.8.7 is a private address" in out["reason"], out
    assert asked == []  # its caption track was never asked for
