"""A brief's errors reach three faces: the `v2c` command line, the app's brief pane and MCP
agents. Each hint that points somewhere (where the collections, videos, saved briefs or
models are listed; what a brief can read) is written once with a placeholder and worded by
the face that shows it: the app never names a command, the CLI never names a menu, and an
agent is pointed at its own tools."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from tests.unit.briefs.scripted import BriefWriter
from tests.unit.briefs.test_pipeline import MAKE, QUESTION, build, folder, open_core
from tests.unit.owner.toys import run
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.briefs.events import BriefRequest
from v2c_desktop.core.errors import V2CError

pytestmark = pytest.mark.corpus

#: (what fails, the code, what the app says, what an agent is told, what the CLI says)
CASES = {
    "an empty collection": ("bad-request", "select videos in the Library", "urls", "--video ID"),
    "a deleted collection": (
        "not-found",
        "collections the Library lists",
        "list_collections",
        "v2c collections list",
    ),
    "an unknown video": ("not-found", "videos the Library lists", "URL", "v2c list"),
    "a deleted brief": ("not-found", "the Brief pane lists", "Brief pane", "v2c briefs list"),
    "an unknown model": ("not-found", "Settings → Models", "list_models", "v2c models list"),
}


async def _failures(api: CoreAPI, tmp_path: Path) -> dict[str, V2CError]:
    """Each way a brief can fail to find what it was asked for, as it failed."""
    await api.add([str(folder(tmp_path, MAKE))], collection="Memory")
    (video,) = await api.list_videos()
    empty = await api.create_collection("Empty")
    gone = await api.create_collection("Gone")
    await api.delete_collection(gone.id)
    _, brief = await build(api, BriefRequest(QUESTION, video_ids=(video.id,)))
    await api.delete_brief(brief.id)
    attempts: dict[str, Callable[[], Awaitable[object]]] = {
        "an empty collection": lambda: api.estimate_brief(
            BriefRequest(QUESTION, collection=empty.id)
        ),
        "a deleted collection": lambda: build(api, BriefRequest(QUESTION, collection=gone.id)),
        "an unknown video": lambda: build(api, BriefRequest(QUESTION, video_ids=("nope:123",))),
        "a deleted brief": lambda: build(api, BriefRequest("", rerun=brief.id)),
        "an unknown model": lambda: build(
            api, BriefRequest(QUESTION, video_ids=(video.id,), model="nope/model", strict=True)
        ),
    }
    out: dict[str, V2CError] = {}
    for name, attempt in attempts.items():
        with pytest.raises(V2CError) as caught:
            await attempt()
        out[name] = caught.value
    return out


def test_every_brief_error_hint_is_worded_for_the_face_that_shows_it(tmp_path: Path) -> None:
    async def go() -> dict[str, V2CError]:
        api = await open_core(tmp_path, BriefWriter(context_window=200_000))
        try:
            return await _failures(api, tmp_path)
        finally:
            await api.aclose()

    failures = run(go(), timeout=120)
    assert set(failures) == set(CASES)
    for name, (code, app, agent, cli) in CASES.items():
        error = failures[name]
        assert error.code == code, (name, error)
        assert "{" in error.hint, (name, error.hint)  # a placeholder, worded by each face
        shown = error.hint_for("app")
        assert app in shown, (name, shown)
        assert "v2c " not in shown and "`" not in shown and "--" not in shown, (name, shown)
        told = error.hint_for("agent")
        assert agent in told, (name, told)
        assert "--" not in told and "the Library" not in told, (name, told)
        typed = error.hint_for("cli")
        assert cli in typed, (name, typed)
        assert "Library" not in typed and "Settings" not in typed, (name, typed)
    # what the model error knows is kept beside the pointer: the models there are
    assert "configured models: scripted/brief-writer" in failures["an unknown model"].hint
