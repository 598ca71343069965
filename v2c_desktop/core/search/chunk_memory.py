"""Every indexed chunk's row (times, segments, chapter, text) in memory, for building hits.

A page of hits needs the rows of its ~100 fused chunks, and phrase and exclusion checks
need the texts of their candidates. From DuckDB each is a query, and a point query there is
a scan: about 2.5 ms at 1k chunks and 5 ms at 100k here, the largest stage of a search
after the vector product. Held here, the same rows take a fraction of a millisecond.

Why this can stay simple: a chunk's row never changes. Re-indexing a video deletes its
chunks and writes new ones under new ids from a sequence, so a row held under an id is that
chunk's row for as long as the chunk exists. What changes is only WHICH chunks exist, and
searches ask only for ids of the current keyword and vector snapshots. This memory follows
the videos this engine indexes or drops (`replace_video`, `drop_video`) and forgets those
found changed behind its back (`forget`); a chunk it does not hold (written by another
process, or asked for before the first fill has reached it) is read from the table, as
before (`hit_rows.ChunkRows`).

The first fill reads every chunk once, on a background thread (`fill`), so opening a large
library does not wait for it; a video indexed or dropped meanwhile keeps what the engine
told this memory, never the older rows the fill read.

Memory: texts are zlib-compressed in blocks of 16 chunks (about 3x smaller), times and
segment numbers are numpy arrays (32 bytes a chunk): 22.6 MiB at 100k chunks in all, so
about 0.22 GiB at 1M (`bench/search_bench.py`). One block decompresses in about 20 us.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from ..store.search_reads import ChunkRow

__all__ = ["ChunkMemory"]

BLOCK = 16  # chunks per compressed text block
LEVEL = 1  # zlib's fastest level: 3x here; a fill of 100k chunks takes 1.1-1.3 s in all
NO_CHAPTER = -1
FILL_BATCH = 256  # videos a fill hands over at once (each hand-over re-sorts the lookup)

T = TypeVar("T")
EachVideo = Callable[[Callable[[], bool]], Iterator[tuple[str, list[ChunkRow]]]]


@dataclass(frozen=True, slots=True)
class _Video:
    """One video's chunks, by ascending id; texts in compressed blocks of BLOCK chunks."""

    video_id: str
    ids: npt.NDArray[np.int64]
    start: npt.NDArray[np.float64]
    end: npt.NDArray[np.float64]
    segs: npt.NDArray[np.int32]  # (first, last) per chunk
    chapter: npt.NDArray[np.int32]  # NO_CHAPTER for none
    lengths: npt.NDArray[np.int32]  # characters of each text
    blocks: tuple[bytes, ...]

    @staticmethod
    def of(video_id: str, rows: Sequence[ChunkRow]) -> _Video:
        rows = sorted(rows, key=lambda r: r.id)
        texts = [r.text for r in rows]
        return _Video(
            video_id,
            np.fromiter((r.id for r in rows), np.int64, len(rows)),
            np.fromiter((r.start for r in rows), np.float64, len(rows)),
            np.fromiter((r.end for r in rows), np.float64, len(rows)),
            np.array([(r.first_seg, r.last_seg) for r in rows], np.int32).reshape(-1, 2),
            np.fromiter(
                (NO_CHAPTER if r.chapter is None else r.chapter for r in rows), np.int32, len(rows)
            ),
            np.fromiter((len(t) for t in texts), np.int32, len(rows)),
            tuple(
                zlib.compress("".join(texts[a : a + BLOCK]).encode("utf-8"), LEVEL)
                for a in range(0, len(texts), BLOCK)
            ),
        )

    def position(self, chunk_id: int) -> int | None:
        i = int(np.searchsorted(self.ids, chunk_id))
        return i if i < len(self.ids) and int(self.ids[i]) == chunk_id else None

    def texts_of_block(self, block: int) -> list[str]:
        text = zlib.decompress(self.blocks[block]).decode("utf-8")
        out, at = [], 0
        for length in self.lengths[block * BLOCK : (block + 1) * BLOCK].tolist():
            out.append(text[at : at + length])
            at += length
        return out

    def row(self, i: int, text: str) -> ChunkRow:
        chapter = int(self.chapter[i])
        return ChunkRow(
            int(self.ids[i]),
            self.video_id,
            float(self.start[i]),
            float(self.end[i]),
            int(self.segs[i, 0]),
            int(self.segs[i, 1]),
            None if chapter == NO_CHAPTER else chapter,
            text,
        )

    def nbytes(self) -> int:
        arrays = (self.ids, self.start, self.end, self.segs, self.chapter, self.lengths)
        return sum(a.nbytes for a in arrays) + sum(len(b) for b in self.blocks)


@dataclass(frozen=True, slots=True)
class _Lookup:
    """Videos by their lowest chunk id: a video's ids come from one sequence call, so an
    id belongs to the video with the greatest lowest id not above it (checked, not assumed:
    an id not found there is simply not held)."""

    lowest: npt.NDArray[np.int64]
    videos: tuple[_Video, ...]

    def changed(self, old: _Video | None, new: _Video | None) -> _Lookup:
        """This lookup with `old` taken out and `new` put in (O(videos) copies, no sort:
        one video's write must not cost a sort of the whole library)."""
        lowest, videos = self.lowest, list(self.videos)
        if old is not None:
            k = int(np.searchsorted(lowest, old.ids[0]))
            while k < len(videos) and videos[k] is not old:
                k += 1
            if k < len(videos):
                lowest, _ = np.delete(lowest, k), videos.pop(k)
        if new is not None:
            k = int(np.searchsorted(lowest, new.ids[0]))
            lowest = np.insert(lowest, k, new.ids[0])
            videos.insert(k, new)
        return _Lookup(lowest, tuple(videos))

    def video_of(self, chunk_id: int) -> tuple[_Video, int] | None:
        k = int(np.searchsorted(self.lowest, chunk_id, side="right")) - 1
        if k < 0:
            return None
        video = self.videos[k]
        i = video.position(chunk_id)
        return None if i is None else (video, i)


class ChunkMemory:
    """The rows of indexed chunks by id; `rows` answers with those it holds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._videos: dict[str, _Video] = {}
        self._lookup = _Lookup(np.zeros(0, np.int64), ())
        self._filling = False
        self._told: set[str] = set()  # videos changed by the engine while a fill runs
        self._stop = threading.Event()

    # -- changes -------------------------------------------------------------------------------
    def replace_video(self, video_id: str, rows: Sequence[ChunkRow]) -> None:
        """A video's chunks as just written (none: the video was dropped)."""
        video = _Video.of(video_id, rows) if rows else None
        with self._lock:
            if self._filling:
                self._told.add(video_id)
            old = self._videos.pop(video_id, None)
            if video is not None:
                self._videos[video_id] = video
            self._lookup = self._lookup.changed(old, video)

    def drop_video(self, video_id: str) -> None:
        self.replace_video(video_id, [])

    def forget(self, video_ids: Iterable[str]) -> None:
        """Stop holding these videos (changed behind the engine's back): their chunks are
        read from the table from now on."""
        with self._lock:
            for video_id in video_ids:
                if self._filling:
                    self._told.add(video_id)
                self._videos.pop(video_id, None)
            self._relink()

    def fill(self, each_video: EachVideo) -> int:
        """Hold every video `each_video` streams (see `SearchReads.each_video_chunks`),
        except those the engine changed since the fill began; returns the videos added.
        Runs on a worker thread; `stop` ends it early."""
        with self._lock:
            self._filling, self._told = True, set()
        added = 0
        pending: dict[str, _Video] = {}
        try:
            for video_id, rows in each_video(lambda: not self._stop.is_set()):
                pending[video_id] = _Video.of(video_id, rows)
                if len(pending) >= FILL_BATCH:
                    added += self._take(pending)
            added += self._take(pending)
        finally:
            with self._lock:
                self._filling, self._told = False, set()
        return added

    def _take(self, pending: dict[str, _Video]) -> int:
        with self._lock:
            fresh = {v: video for v, video in pending.items() if v not in self._told}
            self._videos.update(fresh)
            self._relink()
        pending.clear()
        return len(fresh)

    def stop(self) -> None:
        """Ask a running fill to end (the engine is closing)."""
        self._stop.set()

    def _relink(self) -> None:
        """Rebuild the lookup from every held video (after many changes at once)."""
        videos = sorted(self._videos.values(), key=lambda v: int(v.ids[0]))
        self._lookup = _Lookup(
            np.fromiter((int(v.ids[0]) for v in videos), np.int64), tuple(videos)
        )

    # -- reads ---------------------------------------------------------------------------------
    def rows(self, chunk_ids: Iterable[int], *, texts: bool = True) -> dict[int, ChunkRow]:
        """The rows of those chunks held here, by id (the others are simply absent); with
        `texts` off, each row's text is left empty and nothing is decompressed (a page of
        hits needs the places of all its fused chunks but the texts of only a few)."""
        if not texts:
            return self._read(chunk_ids, lambda video, i, _: video.row(i, ""), decompress=False)
        return self._read(chunk_ids, lambda video, i, text: video.row(i, text))

    def texts(self, chunk_ids: Iterable[int]) -> dict[int, str]:
        return self._read(chunk_ids, lambda video, i, text: text)

    def _read(
        self,
        chunk_ids: Iterable[int],
        make: Callable[[_Video, int, str], T],
        *,
        decompress: bool = True,
    ) -> dict[int, T]:
        lookup = self._lookup  # one consistent snapshot: changes build a new one
        blocks: dict[tuple[str, int], list[str]] = {}
        out: dict[int, T] = {}
        for cid in chunk_ids:
            found = lookup.video_of(cid)
            if found is None:
                continue
            video, i = found
            if not decompress:
                out[cid] = make(video, i, "")
                continue
            key = (video.video_id, i // BLOCK)
            texts = blocks.get(key)
            if texts is None:
                texts = blocks[key] = video.texts_of_block(i // BLOCK)
            out[cid] = make(video, i, texts[i % BLOCK])
        return out

    # -- figures -------------------------------------------------------------------------------
    def __len__(self) -> int:
        return sum(len(v.ids) for v in self._lookup.videos)

    def memory_bytes(self) -> int:
        return sum(v.nbytes() for v in self._lookup.videos)
