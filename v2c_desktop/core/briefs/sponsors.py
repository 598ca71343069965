"""A brief's sources without their sponsor reads (`BriefRequest.skip_sponsors`).

Only what the library already holds is used: the SponsorBlock `sponsor` segments fetched
before (`get_skip_segments`, or the app's player with skipping on); a brief never asks
SponsorBlock itself. A caption line wholly inside such a segment is left out of the source
the brief reads, quotes and verifies against (a line running past its edge stays), and the
brief says in its limitations what was left out, and which videos SponsorBlock was never
asked about (their sponsor reads, if any, stayed in).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..domain.skips import SPONSOR
from ..domain.videos import VideoRecord
from ..sponsor.spans import without_spans
from ..store import LibraryStore
from ..timecode import clock

NAMED = 3  # videos named in a limitation before "and N more"


async def without_sponsors(
    store: LibraryStore, records: Sequence[VideoRecord]
) -> tuple[list[VideoRecord], list[str]]:
    """(the records without their stored sponsor reads, the limitations to say about it)."""
    kept: list[VideoRecord] = []
    cut: list[tuple[str, int, float]] = []  # title, lines left out, their seconds
    unknown: list[str] = []
    for record in records:
        stored = await store.run(store.skip_segments, record.video.id)
        title = record.video.title or record.video.id
        if stored is None:
            unknown.append(title)
            kept.append(record)
            continue
        spans = [(s.start, s.end) for s in stored.segments if s.category == SPONSOR]
        trimmed, lines, seconds = without_spans(record, spans)
        if lines:
            cut.append((title, lines, seconds))
        kept.append(trimmed)
    return kept, _limitations(cut, unknown, len(records))


def _limitations(cut: list[tuple[str, int, float]], unknown: list[str], total: int) -> list[str]:
    said: list[str] = []
    if cut:
        parts = [f"{lines} caption lines ({clock(seconds)}) of “{t}”" for t, lines, seconds in cut]
        said.append(
            "Sponsor reads were left out of the sources (SponsorBlock's sponsor segments "
            f"kept in the library): {_listed(parts)}"
        )
    elif total > len(unknown):
        where = "the others" if unknown else "these videos"
        said.append(f"No sponsor read was left out: SponsorBlock lists none in {where}")
    if unknown:
        them = "read in it" if len(unknown) == 1 else "reads in them"
        said.append(
            f"{_count(len(unknown))} never looked up on SponsorBlock, so any sponsor {them} "
            f"stayed in: {_listed([f'“{t}”' for t in unknown])}"
        )
    return said


def _listed(items: list[str]) -> str:
    shown = "; ".join(items[:NAMED])
    return shown + (f"; and {len(items) - NAMED} more" if len(items) > NAMED else "")


def _count(n: int) -> str:
    return "1 video was" if n == 1 else f"{n} videos were"
