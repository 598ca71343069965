"""What a hit shows of its video (title, channel, link parts, chapter titles), kept warm.

Every search needs these for its ~10 hits. Joining them into the chunk query made DuckDB
scan videos and chapters on every search (about 3.5 ms of 6 at 100k chunks), so every
card is read in one go (about 10 ms for 1,750 videos) and kept until the library changes
(`LibraryStore.generation`). Reading only the missing ones instead cost each search with a
video not seen before two more queries (about 2.5 ms).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import duckdb

from ..domain.videos import Video
from ..store import LibraryStore
from ..store.until_write import UntilWrite

_VIDEOS_SQL = "SELECT id, title, channel, platform, native_id, url, source_path FROM videos"
_CHAPTERS_SQL = "SELECT video_id, idx, title FROM chapters"


@dataclass(frozen=True, slots=True)
class VideoCard:
    video: Video
    chapters: dict[int, str] = field(default_factory=dict)

    def chapter_title(self, idx: int | None) -> str | None:
        return None if idx is None else self.chapters.get(idx)


class VideoCards:
    """Every video's card, read on first need and read again after the store writes."""

    def __init__(
        self, store: LibraryStore, reader: Callable[[], duckdb.DuckDBPyConnection]
    ) -> None:
        self._reader = reader
        self._cards: UntilWrite[dict[str, VideoCard]] = UntilWrite(store)

    def get(self, video_ids: Iterable[str]) -> dict[str, VideoCard]:
        """Cards of those videos that exist; called from worker threads."""
        cards = self._cards.get(self._read)
        return {v: cards[v] for v in video_ids if v in cards}

    def _read(self) -> dict[str, VideoCard]:
        reader = self._reader()
        chapters: dict[str, dict[int, str]] = {}
        for vid, idx, title in reader.execute(_CHAPTERS_SQL).fetchall():
            chapters.setdefault(str(vid), {})[int(idx)] = str(title)
        return {
            str(row[0]): VideoCard(
                Video(
                    id=str(row[0]),
                    title=row[1],
                    channel=row[2],
                    platform=row[3],
                    native_id=row[4],
                    url=row[5],
                    source_path=row[6],
                ),
                chapters.get(str(row[0]), {}),
            )
            for row in reader.execute(_VIDEOS_SQL).fetchall()
        }
