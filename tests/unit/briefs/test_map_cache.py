"""The map cache: a chunk's claims are reused only for the same transcript, question, model
and prompt version; anything else maps again (the scripted writer counts its map calls)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.briefs.scripted import BriefWriter
from tests.unit.briefs.test_pipeline import FORGET, MAKE, QUESTION, build, folder, open_core
from tests.unit.owner.toys import run
from v2c_desktop.core.briefs import prompts
from v2c_desktop.core.briefs.events import Brief, BriefRequest

pytestmark = pytest.mark.corpus


def maps_of(writer: BriefWriter) -> int:
    """Map calls since the last look (and start counting again)."""
    count = writer.calls.count("map")
    writer.calls.clear()
    return count


def test_another_question_maps_again_the_same_one_reuses_the_maps(tmp_path: Path) -> None:
    async def go() -> list[tuple[int, Brief]]:
        writer = BriefWriter(context_window=4096)
        api = await open_core(tmp_path, writer)
        try:
            await api.add([str(folder(tmp_path, MAKE))], collection="Memory")
            out = []
            for question in (
                QUESTION,
                "Why do we forget names?",
                "  how are MEMORIES made and lost? ",
            ):
                _, brief = await build(api, BriefRequest(question, collection="Memory"))
                out.append((maps_of(writer), brief))
            return out
        finally:
            await api.aclose()

    (first, _), (other, other_brief), (again, again_brief) = run(go(), timeout=120)
    assert first > 0
    assert other == first and other_brief.reused_maps == 0  # claims picked for its question
    assert again == 0 and again_brief.reused_maps == first  # the same words: the same key


def test_a_rerun_after_adding_a_video_maps_only_the_new_video(tmp_path: Path) -> None:
    async def go() -> tuple[int, int, int, Brief]:
        writer = BriefWriter(context_window=4096)
        api = await open_core(tmp_path, writer)
        try:
            await api.add([str(folder(tmp_path, MAKE))], collection="Memory")
            _, first = await build(api, BriefRequest(QUESTION, collection="Memory"))
            made = maps_of(writer)
            await api.add([str(folder(tmp_path, FORGET))], collection="Memory")
            _, again = await build(api, BriefRequest("", rerun=first.id))
            rerun = maps_of(writer)
            await build(api, BriefRequest("Why do we forget?", collection="Memory"))
            return made, rerun, maps_of(writer), again
        finally:
            await api.aclose()

    made, rerun, everything, again = run(go(), timeout=180)
    assert made > 0 and again.reused_maps == made
    assert rerun == everything - made > 0  # every part of the new video, none of the old


def test_a_changed_transcript_or_prompt_version_maps_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def go() -> tuple[int, int, int, int]:
        writer = BriefWriter(context_window=4096)
        api = await open_core(tmp_path, writer)
        try:
            videos = folder(tmp_path, MAKE, FORGET)
            await api.add([str(videos)], collection="Memory")
            request = BriefRequest(QUESTION, collection="Memory")
            await build(api, request)
            both = maps_of(writer)
            # one caption line of one video corrected: that video's transcript changed
            srt = videos / f"{FORGET}.en.srt"
            text = srt.read_text(encoding="utf-8")
            srt.write_text(text.replace("memory", "memories", 1), encoding="utf-8")
            (outcome,) = (await api.add([str(srt)])).outcomes
            assert outcome.status == "updated", outcome
            await build(api, request)
            changed = maps_of(writer)
            await build(api, request)
            unchanged = maps_of(writer)
            monkeypatch.setattr(prompts, "MAP_PROMPT_VERSION", "map-test-next")
            await build(api, request)
            return both, changed, unchanged, maps_of(writer)
        finally:
            await api.aclose()

    both, changed, unchanged, new_prompt = run(go(), timeout=180)
    assert 0 < changed < both  # only the corrected video's parts
    assert unchanged == 0
    assert new_prompt == both
