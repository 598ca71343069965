"""`list_caption_languages` and `choose_caption_track` through the official MCP client and
real server processes, with YouTube replayed (tests/mcp/youtube_server.py: recorded player
responses read as yt-dlp reads them, caption tracks served by an httpx transport).

One client answers MCP elicitation (a scripted user who picks a track, declines, cancels);
the other declares no elicitation capability and gets the track list back, then names the
track itself. A bad URL is an `isError` result and the server serves on.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientRequestContext
from mcp.types import ElicitRequestFormParams, ElicitRequestParams, ElicitResult

from tests.conftest import corpus_path
from tests.mcp.harness import McpProcess, error_of, server_env, text_of
from tests.support.youtube_replay import PLAYERS, caption_lines, watch_url
from tests.unit.owner.toys import remove_dir, short_dir

pytestmark = [pytest.mark.corpus, pytest.mark.timeout(300)]

SURFACE = "GJLlxj_dtq8"
SURFACE_ID = f"youtube:{SURFACE}"
URL = watch_url(SURFACE)
WW1_URL = watch_url("F1xioXWb8CY")
TITLE = "Surface Go Review - It’s Awesome"


class ScriptedUser:
    """The user behind an elicitation-capable client: answers forms from `answers`, in
    order, and keeps every form it was shown."""

    def __init__(self) -> None:
        self.answers: list[ElicitResult] = []
        self.forms: list[ElicitRequestFormParams] = []

    async def __call__(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult:
        assert isinstance(params, ElicitRequestFormParams), params
        self.forms.append(params)
        return self.answers.pop(0)


def _server(tmp: Path, name: str, user: ScriptedUser | None) -> Iterator[McpProcess]:
    players = corpus_path(PLAYERS)
    home, runtime = tmp / "home", short_dir()
    process = McpProcess(
        tmp / "library.duckdb",
        server_env(home, runtime),
        name=name,
        command=[sys.executable, "-m", "tests.mcp.youtube_server", "--players", str(players)],
        elicitation=user,
    )
    try:
        yield process
    finally:
        process.close()
        remove_dir(runtime)


@pytest.fixture(scope="module")
def user() -> ScriptedUser:
    return ScriptedUser()


@pytest.fixture(scope="module")
def asking(tmp_path_factory: pytest.TempPathFactory, user: ScriptedUser) -> Iterator[McpProcess]:
    """A server whose client can show the user forms."""
    yield from _server(tmp_path_factory.mktemp("mcp-captions-asking"), "asking", user)


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpProcess]:
    """A server whose client has no elicitation capability."""
    yield from _server(tmp_path_factory.mktemp("mcp-captions-plain"), "plain", None)


def structured(server: McpProcess, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = server.call(name, arguments, progress=True)
    assert not result.is_error, f"{name}: {text_of(result)}\n{server.stderr()[-3000:]}"
    body: dict[str, Any] = json.loads(text_of(result))
    assert body == result.structured_content
    return body


def transcript_text(server: McpProcess) -> str:
    return server.text("get_transcript", {"url": SURFACE_ID})


def test_both_tools_are_listed_with_schemas_and_annotations(plain: McpProcess) -> None:
    tools = {t.name: t for t in plain.run(lambda s: s.list_tools()).tools}
    listing, choosing = tools["list_caption_languages"], tools["choose_caption_track"]
    assert listing.output_schema is not None and choosing.output_schema is not None
    assert set(listing.output_schema["properties"]) >= {"tracks", "translationLanguages", "current"}
    notes = listing.annotations
    assert notes is not None and notes.read_only_hint is True and notes.open_world_hint is True
    notes = choosing.annotations
    assert notes is not None and notes.read_only_hint is False
    assert notes.destructive_hint is True and notes.idempotent_hint is True  # it replaces
    assert set(choosing.input_schema["properties"]) == {"url", "language", "kind", "translateTo"}
    assert choosing.input_schema["required"] == ["url"]
    for tool in (listing, choosing):
        for prop, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), f"{tool.name}.{prop}"


def test_the_user_picks_a_track_in_a_form_and_it_is_imported(
    asking: McpProcess, user: ScriptedUser
) -> None:
    user.answers.append(ElicitResult(action="accept", content={"track": "creator:de"}))
    asking.progress.clear()
    body = structured(asking, "choose_caption_track", {"url": URL})
    form = user.forms[-1]
    assert TITLE in form.message and "Its transcript now: none yet" in form.message
    schema = form.requested_schema
    track = schema["properties"]["track"]
    options = {o["const"]: o["title"] for o in track["oneOf"]}
    assert len(options) == 9 and options["creator:de"] == "German · creator captions (de)"
    assert options["auto:en"] == "English (Original) · auto captions (en)"
    assert schema["required"] == ["track"]
    targets = {o["const"] for o in schema["properties"]["translateTo"]["oneOf"]}
    assert len(targets) == 18 and {"fr", "zh-Hant"} <= targets
    assert body["status"] == "added" and body["videoId"] == SURFACE_ID
    assert body["transcript"]["track"] == "creator:de"
    assert body["transcript"]["origin"] == "creator-captions"
    assert body["transcript"]["language"] == "de" and body["transcript"]["segments"] == 3
    assert body["message"] == "Imported with the creator captions (de)."
    assert any("German captions" in (m or "") for _, _, m in asking.progress), asking.progress
    assert caption_lines("creator de")[0] in transcript_text(asking)
    metadata = json.loads(asking.text("get_metadata", {"url": SURFACE_ID}))
    assert metadata["transcript"]["track"] == "creator:de"  # where it came from, shown

    # a second pick, with a translation, replaces it; the form marks the current track
    user.answers.append(
        ElicitResult(action="accept", content={"track": "auto:en", "translateTo": "fr"})
    )
    again = structured(asking, "choose_caption_track", {"url": SURFACE_ID})
    shown = {
        o["const"]: o["title"]
        for o in user.forms[-1].requested_schema["properties"]["track"]["oneOf"]
    }
    assert shown["creator:de"].endswith(" · now")
    assert user.forms[-1].requested_schema["properties"]["track"]["default"] == "creator:de"
    assert "Its transcript now: creator captions (de)" in user.forms[-1].message
    assert again["status"] == "updated"
    assert again["transcript"]["track"] == "auto:en>fr"
    assert again["transcript"]["translatedFrom"] == "en"
    assert again["message"].startswith("Replaced its transcript (creator captions (de))")
    assert caption_lines("auto en>fr")[0] in transcript_text(asking)


def test_declining_or_cancelling_the_form_changes_nothing(
    asking: McpProcess, user: ScriptedUser
) -> None:
    asking.text("get_transcript", {"url": URL})  # saved, whichever test ran before
    before = transcript_text(asking)
    listed = structured(asking, "list_caption_languages", {"url": URL})
    current = listed["current"]
    for action in ("decline", "cancel"):
        user.answers.append(ElicitResult(action=action))
        body = structured(asking, "choose_caption_track", {"url": URL})
        said = "declined" if action == "decline" else "cancelled"
        assert body["status"] == said
        assert body["message"].startswith(f"Nothing changed: the user {said} choosing")
        assert "transcript" not in body or body["transcript"] is None
        assert transcript_text(asking) == before
    assert structured(asking, "list_caption_languages", {"url": URL})["current"] == current


def test_without_elicitation_the_list_comes_back_and_a_named_track_is_imported(
    plain: McpProcess,
) -> None:
    body = structured(plain, "choose_caption_track", {"url": WW1_URL})
    assert body["status"] == "needs-choice"
    assert "cannot show the user a form" in body["message"]
    assert "call choose_caption_track again" in body["message"]
    choices = body["choices"]
    assert [(t["kind"], t["language"]) for t in choices["tracks"]] == [
        ("creator", "en"),
        ("auto", "en"),
    ]
    assert len(choices["translationLanguages"]) == 17 and not choices["inLibrary"]
    listed_now = plain.run(lambda s: s.list_resources()).resources
    assert not any("F1xioXWb8CY" in str(r.uri) for r in listed_now)  # nothing was imported

    named = structured(plain, "choose_caption_track", {"url": WW1_URL, "language": "en"})
    assert named["status"] == "added" and named["transcript"]["track"] == "creator:en"
    auto = structured(
        plain, "choose_caption_track", {"url": WW1_URL, "language": "en", "kind": "auto"}
    )
    assert auto["status"] == "updated" and auto["transcript"]["track"] == "auto:en"
    listed = structured(plain, "list_caption_languages", {"url": "youtube:F1xioXWb8CY"})
    assert listed["inLibrary"] and listed["current"] == {
        "language": "en",
        "kind": "auto",
        "translateTo": None,
    }
    assert [t["current"] for t in listed["tracks"]] == [False, True]
    assert listed["currentTranscript"] == "auto captions (en)"

    unknown = error_of(
        plain.call("choose_caption_track", {"url": WW1_URL, "language": "xx", "kind": "auto"})
    )
    assert unknown["error"] == "not-found"
    assert "no auto caption track in 'xx'" in unknown["message"]
    assert "creator en; auto en" in unknown["hint"]


def test_a_bad_url_is_an_error_result_and_the_server_serves_on(plain: McpProcess) -> None:
    gone = error_of(plain.call("list_caption_languages", {"url": watch_url("aaaaaaaaaaa")}))
    assert gone["error"] == "not-found" and "unavailable" in gone["message"].lower()
    private = error_of(plain.call("choose_caption_track", {"url": "http://127.0.0.1:9/talk"}))
    assert private["error"] == "bad-request"
    nothing = error_of(plain.call("list_caption_languages", {"url": "no such video"}))
    assert nothing["error"] == "not-found"
    wrong = error_of(plain.call("choose_caption_track", {"url": URL, "kind": "auto"}))
    assert wrong["error"] == "bad-request" and "go with language" in wrong["message"]
    listed = structured(plain, "list_caption_languages", {"url": URL})
    assert len(listed["tracks"]) == 9 and listed["title"] == TITLE
    assert "Traceback" not in plain.stderr()
