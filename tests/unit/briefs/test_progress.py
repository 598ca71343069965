"""A build's progress carries numbers, not only words: how many videos it reads, which one
it reads now, the map part of all parts, how many parts came back from the cache. A face
shows its own words from these (the app's "reading video 2 of 2 (part 5/9)"), so they must
be right and in order: checked here against what the scripted model was really asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.briefs.scripted import BriefWriter
from tests.unit.briefs.test_pipeline import FORGET, MAKE, QUESTION, build, folder, open_core
from tests.unit.owner.toys import run
from v2c_desktop.core.briefs.events import Brief, BriefRequest, BriefStep

pytestmark = pytest.mark.corpus

SLEEP = "to_sleep_perchance_to_dream_crash_course_psychology_9_rMHus-0wFSo"


def test_map_steps_count_videos_parts_and_reused_parts_in_order(tmp_path: Path) -> None:
    writer = BriefWriter(context_window=4096)  # a small window: each video in several parts

    async def go() -> tuple[int, list[BriefStep], Brief]:
        api = await open_core(tmp_path, writer)
        try:
            await api.add([str(folder(tmp_path, MAKE))], collection="Memory")
            _, first = await build(api, BriefRequest(QUESTION, collection="Memory"))
            cached = writer.calls.count("map")
            await api.add([str(folder(tmp_path, FORGET))], collection="Memory")
            writer.calls.clear()
            writer.prompts.clear()
            steps, again = await build(api, BriefRequest("", rerun=first.id))
            return cached, steps, again
        finally:
            await api.aclose()

    cached, steps, brief = run(go(), timeout=180)
    (scope,) = [s for s in steps if s.stage == "scope" and s.done]
    assert scope.videos == 2
    *reading, verified = [s for s in steps if s.stage == "map"]
    parts = len(reading)
    assert cached >= 2 and parts > cached  # the cached video's parts, then the new one's
    assert [s.part for s in reading] == list(range(1, parts + 1))
    assert {(s.parts, s.videos) for s in reading} == {(parts, 2)}
    assert [s.done for s in reading] == list(range(parts))  # the words' count agrees
    # the cached video's parts first, each one more reused; then the new video, read anew
    assert [s.video for s in reading] == [1] * cached + [2] * (parts - cached)
    assert [s.reused for s in reading] == [*range(cached), *[cached] * (parts - cached)]
    assert (verified.part, verified.video, verified.parts) == (0, 0, parts)
    assert verified.reused == brief.reused_maps == cached
    # each part the model read is of the video the step named
    (second,) = [c.title for c in brief.coverage if c.status == "read"][1:]
    asked = [prompt for step, prompt in writer.prompts if step == "map"]
    assert len(asked) == parts - cached and all(second in prompt for prompt in asked)
    assert {s.videos for s in steps if s.stage == "reduce"} == {2}


def test_extract_steps_go_a_video_at_a_time(tmp_path: Path) -> None:
    async def go() -> tuple[list[BriefStep], Brief]:
        api = await open_core(tmp_path, None)
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET, SLEEP))], collection="Memory")
            return await build(api, BriefRequest(QUESTION, collection="Memory"))
        finally:
            await api.aclose()

    steps, brief = run(go(), timeout=120)
    assert brief.extractive and brief.topics
    extract = [s for s in steps if s.stage == "extract"]
    assert [(s.done, s.video) for s in extract] == [
        (0, 0),  # started: the best passages of 3 videos
        (0, 1),  # quoting video 1
        (1, 2),
        (2, 3),
        (3, 0),  # every video quoted: grouping
        (3, 0),  # grouped
    ]
    assert {(s.total, s.videos) for s in extract} == {(3, 3)}
    assert {s.part for s in steps} == {0}  # an extractive brief reads no parts


def test_a_one_pass_brief_says_how_many_videos_it_writes_from(tmp_path: Path) -> None:
    async def go() -> list[BriefStep]:
        api = await open_core(tmp_path, BriefWriter(context_window=200_000))
        try:
            await api.add([str(folder(tmp_path, MAKE, FORGET))], collection="Memory")
            steps, _ = await build(api, BriefRequest(QUESTION, collection="Memory"))
            return steps
        finally:
            await api.aclose()

    steps = run(go(), timeout=120)
    write = [s for s in steps if s.stage == "write"]
    assert [(s.done, s.videos) for s in write] == [(0, 2), (1, 2)]
