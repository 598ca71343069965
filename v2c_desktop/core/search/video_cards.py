"""What a hit shows of its video (title, channel, link parts, chapter titles), kept warm.

Every search needs these for its ~10 hits. Joining them into the chunk query made DuckDB
scan videos and chapters on every search (about 3.5 ms of 6 at 100k chunks), so every
card is read in one go (about 10 ms for 1,750 videos) and kept until the library changes
(`LibraryStore.generation`). Reading only the missing ones instead cost each search with a
video not seen before two more queries (about 2.5 ms).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..store import LibraryStore
from ..store.search_reads import SearchReads, VideoCard
from ..store.until_write import UntilWrite

__all__ = ["VideoCard", "VideoCards"]


class VideoCards:
    """Every video's card, read on first need and read again after the store writes."""

    def __init__(self, store: LibraryStore, reads: SearchReads) -> None:
        self._reads = reads
        self._cards: UntilWrite[dict[str, VideoCard]] = UntilWrite(store)

    def get(self, video_ids: Iterable[str]) -> dict[str, VideoCard]:
        """Cards of those videos that exist; called from worker threads."""
        cards = self._cards.get(self._reads.video_cards)
        return {v: cards[v] for v in video_ids if v in cards}
