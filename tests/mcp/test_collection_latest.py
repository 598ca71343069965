"""A client without sampling, on a library another process owns: the latest-items resource and
its subscriptions, the digest plan, and the `digest` prompt with its completions.

A plain v2c owner process holds the library (as the app would); the `v2c mcp` server under
test is its client, driven by the official MCP client, which declares no sampling. Imports
come from `v2c add` processes of their own, so the change the server must notify about
travels from the importer through the owner's change feed to the server. Corpus: Crash
Course Psychology videos with their real YouTube ids and chapters.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError
from mcp.types import PromptReference, ResourceTemplateReference, ResourceUpdatedNotification

from tests.conftest import REPO, corpus_path
from tests.mcp.harness import McpProcess, build_library, error_of, server_env, text_of
from tests.mcp.test_shared_library import Owner
from tests.unit.owner.toys import remove_dir, short_dir

pytestmark = pytest.mark.corpus

CRASH = "transcripts/crashcourse-psychology"
CONSCIOUSNESS = "consciousness_crash_course_psychology_8_jReX7qKU2yc"
THERAPY = "getting_help_psychotherapy_crash_course_psychology_35_6nEL44QkL9w"
HOMUNCULUS = "homunculus_crash_course_psychology_6_fxZWtc0mYpQ"
CONSCIOUSNESS_ID = "youtube:jReX7qKU2yc"
TALKS, OTHER = "talks", "other"
LATEST = "v2c://collection/{}/latest"
V2C = [sys.executable, "-m", "v2c_desktop.cli.main"]
NOTIFY_S = 30.0
QUIET_S = 2.0  # how long a notification that must not come is waited for


def _copy(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in (".en.srt", ".info.json"):
        shutil.copy(corpus_path(f"{CRASH}/{name}{suffix}"), folder / f"{name}{suffix}")
    return folder / f"{name}.en.srt"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    base = tmp_path_factory.mktemp("latest")
    runtime = short_dir()
    library, home = base / "library.duckdb", base / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(home))
        build_library(library, [str(_copy(base / "saved", CONSCIOUSNESS))])
    env = server_env(home, runtime)
    owner = Owner(library, env)  # the app's place: the server below is its client
    server = McpProcess(library, env)
    for name in ("Talks", "Other"):
        server.text("create_collection", {"name": name})
    server.text("add_to_collection", {"collection": TALKS, "urls": [CONSCIOUSNESS_ID]})
    yield {"server": server, "library": library, "env": env, "base": base}
    server.close()
    assert owner.proc.stdin is not None
    owner.proc.stdin.write("quit\n")
    owner.proc.stdin.flush()
    owner.proc.wait(timeout=30)
    remove_dir(runtime)
    assert not server.junk, f"non-protocol output on stdout: {server.junk}"


@pytest.fixture
def server(setup: dict[str, Any]) -> McpProcess:
    result: McpProcess = setup["server"]
    return result


def _import(setup: dict[str, Any], name: str, collection: str) -> None:
    """`v2c add FILE --collection NAME` as a process of its own (a client of the owner)."""
    path = _copy(setup["base"] / "incoming", name)
    done = subprocess.run(
        [*V2C, "--library", str(setup["library"]), "add", str(path), "--collection", collection],
        cwd=REPO,
        env=setup["env"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def _updated(server: McpProcess) -> list[str]:
    return [
        str(n.params.uri)
        for n in server.notifications
        if isinstance(n, ResourceUpdatedNotification)
    ]


def _wait_for(server: McpProcess, uri: str, seen: int) -> None:
    deadline = time.monotonic() + NOTIFY_S
    while time.monotonic() < deadline:
        if uri in _updated(server)[seen:]:
            return
        time.sleep(0.05)
    raise AssertionError(f"no update for {uri}: {_updated(server)}\n{server.stderr()[-3000:]}")


def _latest(server: McpProcess, collection: str) -> dict[str, Any]:
    read = server.run(lambda s: s.read_resource(LATEST.format(collection)))
    body: dict[str, Any] = json.loads(read.contents[0].text)  # type: ignore[union-attr]
    return body


def test_the_server_says_it_can_be_subscribed_to_and_completes(server: McpProcess) -> None:
    capabilities = server.run(_capabilities)
    assert capabilities.resources is not None and capabilities.resources.subscribe is True
    assert capabilities.completions is not None
    templates = server.run(lambda s: s.list_resource_templates()).resource_templates
    latest = next(t for t in templates if t.uri_template == "v2c://collection/{id}/latest")
    assert latest.mime_type == "application/json" and latest.description


def test_latest_lists_the_newest_items_of_a_collection(server: McpProcess) -> None:
    body = _latest(server, TALKS)
    assert body["collection"] == {"id": TALKS, "name": "Talks"}
    first = body["items"][-1]  # the oldest member shown, the first one added
    assert first["id"] == CONSCIOUSNESS_ID
    assert first["title"].startswith("Consciousness")
    assert first["url"] and "jReX7qKU2yc" in first["url"]
    assert first["durationSec"] > 60 and first["duration"].count(":") == 1
    assert first["addedAt"][:4].isdigit() and "T" in first["addedAt"]
    with pytest.raises(MCPError):
        server.run(lambda s: s.read_resource(LATEST.format("nothere")))


def test_a_subscriber_hears_of_an_import_by_another_process_until_it_unsubscribes(
    setup: dict[str, Any], server: McpProcess
) -> None:
    talks, other = LATEST.format(TALKS), LATEST.format(OTHER)
    server.run(lambda s: _subscription(s, "subscribe", talks))
    server.run(lambda s: _subscription(s, "subscribe", other))
    seen = len(_updated(server))

    _import(setup, THERAPY, "Talks")
    _wait_for(server, talks, seen)
    newest = _latest(server, TALKS)["items"][0]
    assert newest["id"] == "youtube:6nEL44QkL9w" and newest["title"].startswith("Getting Help")
    time.sleep(QUIET_S)
    assert other not in _updated(server)[seen:]  # another collection's import is not news

    server.run(lambda s: _subscription(s, "unsubscribe", talks))
    seen = len(_updated(server))
    _import(setup, HOMUNCULUS, "Talks")
    assert _latest(server, TALKS)["items"][0]["id"] == "youtube:fxZWtc0mYpQ"
    time.sleep(QUIET_S)
    assert _updated(server)[seen:] == []  # unsubscribed: nothing more

    _import(setup, HOMUNCULUS, "Other")  # still subscribed to this one
    _wait_for(server, other, seen)
    assert talks not in _updated(server)[seen:]
    server.run(lambda s: _subscription(s, "unsubscribe", other))


def test_subscribing_to_a_resource_that_does_not_exist_is_refused(server: McpProcess) -> None:
    with pytest.raises(MCPError):
        server.run(lambda s: _subscription(s, "subscribe", LATEST.format("nothere")))
    with pytest.raises(MCPError):
        server.run(lambda s: _subscription(s, "subscribe", "v2c://nothing/at/all"))
    outline = json.loads(server.text("get_outline", {"url": CONSCIOUSNESS_ID}))
    assert outline["title"].startswith("Consciousness")  # still serving


def test_without_sampling_a_digest_is_a_plan_to_follow(server: McpProcess) -> None:
    result = server.call(
        "digest_videos", {"collection": TALKS, "question": "What is consciousness?"}
    )
    assert not result.is_error, text_of(result)
    body = json.loads(text_of(result))
    assert body == result.structured_content
    assert body["mode"] == "plan" and "sampling" in body["why"]
    assert body["digest"] is None and body["points"] == []
    assert "What is consciousness?" in body["instructions"]
    assert "verify_quotes" in body["instructions"]
    video = next(v for v in body["videos"] if v["id"] == CONSCIOUSNESS_ID)
    assert len(video["pieces"]) >= 2  # about 2,300 tokens in pieces of at most 2,000
    assert all(p["tokens"] <= 2000 for p in video["pieces"])
    assert sum(p["tokens"] for p in video["pieces"]) == video["tokens"]
    starts = [p["startSec"] for p in video["pieces"]]
    assert starts == sorted(starts) and starts[0] < 15
    first, second = video["pieces"][:2]
    assert first["read"]["arguments"]["to"] == second["startSec"]  # no gap, no overlap
    assert "jReX7qKU2yc" in first["link"] and first["at"].startswith("[0:")
    read = first["read"]
    section = server.text(read["tool"], read["arguments"])
    assert section.startswith("Title: Consciousness")
    assert body["counts"]["pieces"] == sum(len(v["pieces"]) for v in body["videos"])
    assert body["counts"]["requests"] == 0
    assert error_of(server.call("digest_videos", {"urls": []}))["error"] == "bad-request"


def test_the_digest_prompt_drives_the_tool(server: McpProcess) -> None:
    prompts = {p.name: p for p in server.run(lambda s: s.list_prompts()).prompts}
    names = [a.name for a in prompts["digest"].arguments or []]
    assert names == ["collection", "video", "question"]
    got = server.run(lambda s: s.get_prompt("digest", {"collection": TALKS, "question": "Why?"}))
    text = got.messages[0].content.text  # type: ignore[union-attr]
    assert '{"collection": "talks", "question": "Why?"}' in text
    assert "digest_videos" in text and "verify_quotes" in text and "@ m:ss" in text


def test_prompt_arguments_complete_from_the_library(server: McpProcess) -> None:
    digest = PromptReference(type="ref/prompt", name="digest")

    def complete(ref: Any, name: str, value: str) -> list[str]:
        done = server.run(lambda s: s.complete(ref, {"name": name, "value": value}))
        return list(done.completion.values)

    assert complete(digest, "collection", "ta") == [TALKS]
    assert complete(digest, "collection", "OT") == [OTHER]
    assert sorted(complete(digest, "collection", "")) == [OTHER, TALKS]
    assert complete(digest, "collection", "zz") == []
    assert complete(digest, "video", "consc") == ["Consciousness: Crash Course Psychology #8"]
    assert complete(digest, "video", "youtube:jRe") == [CONSCIOUSNESS_ID]
    brief = PromptReference(type="ref/prompt", name="brief")
    assert complete(brief, "collection", "tal") == [TALKS]
    template = ResourceTemplateReference(type="ref/resource", uri="v2c://collection/{id}/latest")
    assert complete(template, "id", "t") == [TALKS]


async def _capabilities(session: Any) -> Any:
    return session.server_capabilities  # what `initialize` answered


async def _subscription(session: Any, verb: str, uri: str) -> Any:
    """`resources/subscribe` or `unsubscribe` (the SDK warns: gone in the newest protocol)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return await getattr(session, f"{verb}_resource")(uri)
