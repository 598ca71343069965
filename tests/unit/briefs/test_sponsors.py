"""A brief may leave sponsor reads out of its sources (`BriefRequest.skip_sponsors`): the
caption lines wholly inside a SponsorBlock sponsor segment kept in the library are never put
before the model nor cited, the brief's limitations say what was left out and which videos
SponsorBlock was never asked about, and a re-run keeps the choice. Off (the default), the
sponsor read is a source like any other line. A real library file, the scripted brief
writer, SponsorBlock's answer replayed through httpx."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.support.sponsorblock import Script, replay_web
from tests.unit.briefs.scripted import BriefWriter
from tests.unit.briefs.test_pipeline import Models, build
from tests.unit.owner.toys import run
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.briefs.events import Brief, BriefRequest
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings
from v2c_desktop.core.sponsor.client import hash_prefix

BEES_ID = "B33sHoney01"
BEES = [
    "This video is sponsored by NordShield, the honey of VPN services.",
    "NordShield keeps your honey money safe online, use code BEES.",
    "Get sixty percent off NordShield today, honey, with code BEES.",
    "Now, back to the hive, where bees make honey from the nectar of flowers.",
    "Worker bees fan the nectar with their wings until the honey thickens.",
    "A strong hive can store more than thirty kilograms of honey in a summer.",
    "Beekeepers leave enough honey in the hive for the bees to survive the winter.",
]
ANTS = [
    "Honeypot ants hang from the ceiling of their nest like living jars.",
    "Their swollen bodies store honey and water for the whole colony.",
    "In the dry season the colony drinks the honey the living jars keep.",
]
QUESTION = "How do bees and ants keep honey?"


def srt(lines: list[str], seconds: int = 4) -> str:
    def at(s: int) -> str:
        return f"00:{s // 60:02d}:{s % 60:02d},000"

    return "\n".join(
        f"{i + 1}\n{at(i * seconds)} --> {at((i + 1) * seconds)}\n{text}\n"
        for i, text in enumerate(lines)
    )


def videos(tmp_path: Path) -> tuple[Path, Path, Path]:
    """bees.en.srt (a YouTube video, its first 12 s a sponsor read), ants.en.srt (a local
    file), and SponsorBlock's answer for the bees video's hash prefix."""
    folder = tmp_path / "videos"
    folder.mkdir()
    (folder / "bees.en.srt").write_text(srt(BEES), encoding="utf-8")
    info = {
        "id": BEES_ID,
        "title": "How bees make honey",
        "channel": "Hive Mind",
        "duration": 28,
        "extractor": "youtube",
        "extractor_key": "Youtube",
        "webpage_url": f"https://www.youtube.com/watch?v={BEES_ID}",
    }
    (folder / "bees.info.json").write_text(json.dumps(info), encoding="utf-8")
    ants = tmp_path / "ants" / "ants.en.srt"
    ants.parent.mkdir()
    ants.write_text(srt(ANTS), encoding="utf-8")
    answer = tmp_path / "sponsorblock.json"
    segment = {"segment": [0.0, 12.0], "UUID": "b33s", "category": "sponsor", "votes": 7}
    answer.write_text(json.dumps([{"videoID": BEES_ID, "segments": [segment]}]))
    return folder / "bees.en.srt", ants, answer


def test_sponsor_reads_can_be_left_out_of_a_briefs_sources(tmp_path: Path) -> None:
    bees, ants, answer = videos(tmp_path)
    script = Script(answers={hash_prefix(BEES_ID): answer})
    writer = BriefWriter(keyword="honey")

    async def go() -> tuple[Brief, Brief, Brief, int]:
        services = await asyncio.to_thread(
            Services.open,
            tmp_path / "lib.duckdb",
            settings=Settings(),
            web=replay_web(script),
            registry=Models([writer]),
            index_on_import=False,
        )
        api = CoreAPI(services)
        try:
            added = await api.add([str(bees), str(ants)])
            bees_id, ants_id = added.changed_ids
            found = await api.get_skip_segments(bees_id, ["sponsor"])
            assert [(s.start, s.end) for s in found.segments] == [(0.0, 12.0)]
            ids = (bees_id, ants_id)
            _, kept = await build(api, BriefRequest(QUESTION, video_ids=ids))
            _, left = await build(api, BriefRequest(QUESTION, video_ids=ids, skip_sponsors=True))
            _, again = await build(api, BriefRequest("", rerun=left.id))
            return kept, left, again, len(script.requests)
        finally:
            await api.aclose()

    kept, left, again, asked = run(go(), timeout=120)
    assert asked == 1  # the brief itself never asks SponsorBlock

    def quotes(brief: Brief) -> list[str]:
        return [c.quote for p in brief.points for c in [*p.support, *p.oppose]]

    # off: the sponsor read is a line like any other, quoted and cited
    assert any("NordShield" in q for q in quotes(kept))
    assert not any("Sponsor" in line for line in kept.limitations)
    assert kept.scope["skip_sponsors"] is False
    # on: its three lines never reached the model, nothing cites them, the brief says so
    assert quotes(left) and not any("NordShield" in q for q in quotes(left))
    assert any(BEES[3].startswith(q) for q in quotes(left))  # the rest is still read
    sponsor_note, unknown_note = left.limitations[-2:]
    assert sponsor_note.startswith("Sponsor reads were left out of the sources")
    assert "3 caption lines (0:12) of “How bees make honey”" in sponsor_note
    assert unknown_note == (
        "1 video was never looked up on SponsorBlock, so any sponsor read in it stayed in: “Ants”"
    )
    assert left.scope["skip_sponsors"] is True
    # a re-run keeps the choice
    assert again.id == left.id and again.scope["skip_sponsors"] is True
    assert not any("NordShield" in q for q in quotes(again))
    assert again.limitations[-2:] == left.limitations[-2:]
