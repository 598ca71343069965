"""BM25 over an in-memory copy of the postings: the keyword side without a SQL query.

BM25 in SQL over DuckDB's sorted postings takes 12-24 ms a query at 100k chunks here, most
of it query overhead and reading the rows of common terms; the same scoring over numpy
arrays takes a few milliseconds (the approach of the `bm25s` library: postings held as a
term-by-chunk sparse matrix, one vectorised pass per query term). DuckDB stays the store of
record: this copy is rebuilt from its `postings` and `chunks` tables on first use and then
follows every change the engine makes (`replace_video`, `drop_video`); a fingerprint of the
chunk ids (`fingerprint`) tells when the tables changed behind its back (another engine, a
crash between two writes), and the engine then reconciles it from the tables.

Scores are those of `store/bm25.py` term for term: the same formula in float64, document
frequencies counted over live postings, the corpus figures (chunk count, average length) of
live chunks, ties broken by chunk id. Weights are not precomputed (they depend on the
corpus figures, which change with every indexed video), but the term frequencies and
lengths they are made of are, so a query term costs one pass over its postings.

Layout (the sparse matrix, in CSR segments): each segment holds, per term id, the rows
(chunk positions) and term frequencies of its postings. A newly indexed video adds one
small segment; segments are merged log-structured (the newest into the one before it while
it is at least half its size), so a query reads a handful of segments and an indexed
posting is copied O(log n) times. A removed video's rows are marked dead (its postings stay
until dead rows are half the rows, then everything is compacted). Every change builds a new
`_Snapshot`: a search reads one snapshot and never sees half a change.
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..store.bm25 import K1, B

DEAD = -1

IntArray = npt.NDArray[np.int64]
Int32Array = npt.NDArray[np.int32]


@dataclass(frozen=True, slots=True)
class _Segment:
    """Postings of some rows in CSR form: term id t's postings are [indptr[t], indptr[t+1])."""

    indptr: IntArray  # len = (highest term id in the segment) + 2
    rows: Int32Array
    tfs: Int32Array

    @property
    def postings(self) -> int:
        return len(self.rows)

    def of(self, tid: int) -> tuple[Int32Array, Int32Array]:
        if tid + 1 >= len(self.indptr):
            return self.rows[:0], self.tfs[:0]
        a, b = int(self.indptr[tid]), int(self.indptr[tid + 1])
        return self.rows[a:b], self.tfs[a:b]

    def term_ids(self) -> Int32Array:
        """The term id of each posting."""
        counts = np.diff(self.indptr)
        return np.repeat(np.arange(len(counts), dtype=np.int32), counts)


@dataclass(frozen=True, slots=True)
class _Snapshot:
    segments: tuple[_Segment, ...]
    chunk_ids: IntArray  # per row
    lengths: Int32Array  # per row: the chunk's number of index terms
    codes: Int32Array  # per row: the video's code, DEAD once removed or replaced
    live: int
    length_sum: int
    id_sum: int
    dead: int


def _segment(tids: Int32Array, rows: Int32Array, tfs: Int32Array) -> _Segment:
    """A segment from postings in any order (sorted here by term, then row)."""
    order = np.lexsort((rows, tids))
    tids, rows, tfs = tids[order], rows[order], tfs[order]
    size = int(tids[-1]) + 1 if len(tids) else 0
    indptr = np.zeros(size + 1, dtype=np.int64)
    np.cumsum(np.bincount(tids, minlength=size), out=indptr[1:])
    return _Segment(indptr, rows.astype(np.int32), tfs.astype(np.int32))


def _merge(parts: Sequence[_Segment], keep: npt.NDArray[np.bool_] | None = None) -> _Segment:
    """One segment of all of `parts`' postings; with `keep` (per row), only live rows',
    renumbered to their position among the kept rows."""
    tids = np.concatenate([p.term_ids() for p in parts])
    rows = np.concatenate([p.rows for p in parts])
    tfs = np.concatenate([p.tfs for p in parts])
    if keep is not None:
        mask = keep[rows]
        renumber = np.cumsum(keep, dtype=np.int64) - 1
        tids, rows, tfs = tids[mask], renumber[rows[mask]].astype(np.int32), tfs[mask]
    return _segment(tids, rows, tfs)


def _empty() -> _Snapshot:
    return _Snapshot(
        (),
        np.zeros(0, np.int64),
        np.zeros(0, np.int32),
        np.zeros(0, np.int32),
        0,
        0,
        0,
        0,
    )


class KeywordMemory:
    """The postings of every indexed chunk, in memory; one per search engine."""

    def __init__(self) -> None:
        self._lock = threading.RLock()  # changes one at a time; searches never take it
        self._snap: _Snapshot | None = None  # None: not loaded yet
        self._vocab: dict[str, int] = {}  # term -> id; only ever grows
        self._codes: dict[str, int] = {}  # video -> code; only ever grows
        self._video_rows: dict[str, Int32Array] = {}  # a video's live rows
        self._writes = 0  # table writes under way that this memory will follow
        self._writes_lock = threading.Lock()

    # -- state ---------------------------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self._snap is not None

    def fingerprint(self) -> tuple[int, int]:
        """(live chunks, sum of their ids). Chunk ids come from a sequence and only grow,
        so any change to the chunks table moves one of the two: equal means in step."""
        snap = self._snap or _empty()
        return snap.live, snap.id_sum

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Around a write of the tables that this memory then follows: meanwhile the tables
        are ahead of it, and `being_written` tells `SearchEngine` not to reconcile (the
        memory answers as the tables were before the write, until it catches up)."""
        with self._writes_lock:
            self._writes += 1
        try:
            yield
        finally:
            with self._writes_lock:
                self._writes -= 1

    @property
    def being_written(self) -> bool:
        return self._writes > 0

    @property
    def lock(self) -> threading.RLock:
        """Held by every change: holding it, a caller sees no change half done."""
        return self._lock

    def video_ids(self) -> frozenset[str]:
        return frozenset(self._video_rows)

    def video_fingerprints(self) -> dict[str, tuple[int, int]]:
        """Each video's (chunks, sum of chunk ids), as `SearchReads.chunk_fingerprints`."""
        snap = self._snap or _empty()
        return {
            v: (len(rows), int(snap.chunk_ids[rows].sum())) for v, rows in self._video_rows.items()
        }

    def memory_bytes(self) -> int:
        """Bytes held by the arrays (the vocabulary's strings are not counted)."""
        snap = self._snap or _empty()
        arrays: list[npt.NDArray[np.generic]] = [snap.chunk_ids, snap.lengths, snap.codes]
        for seg in snap.segments:
            arrays += [seg.indptr, seg.rows, seg.tfs]
        return sum(a.nbytes for a in arrays)

    def postings(self) -> int:
        snap = self._snap or _empty()
        return sum(seg.postings for seg in snap.segments)

    # -- changes -------------------------------------------------------------------------------
    def load(
        self,
        vocab: Sequence[str],
        chunk_ids: IntArray,
        videos: Sequence[str],
        lengths: Int32Array,
        posting_tids: Int32Array,
        posting_chunks: IntArray,
        posting_tfs: Int32Array,
    ) -> None:
        """Replace everything with the tables' contents (see `SearchReads.keyword_postings`):
        chunks by id, and postings as (term id into `vocab`, chunk id, tf)."""
        with self._lock:
            self._vocab = {term: i for i, term in enumerate(vocab)}
            self._codes = {}
            order = np.argsort(chunk_ids, kind="stable")
            ids = np.asarray(chunk_ids, dtype=np.int64)[order]
            codes = np.asarray([self._code(videos[i]) for i in order], dtype=np.int32)
            lens = np.asarray(lengths, dtype=np.int32)[order]
            rows = np.searchsorted(ids, posting_chunks)
            found = rows < len(ids)
            found[found] = ids[rows[found]] == posting_chunks[found]  # orphans: left out
            segment = _segment(
                np.asarray(posting_tids, dtype=np.int32)[found],
                rows[found].astype(np.int32),
                np.asarray(posting_tfs, dtype=np.int32)[found],
            )
            self._video_rows = _rows_by_code(codes, self._codes)
            self._snap = _Snapshot(
                (segment,) if segment.postings else (),
                ids,
                lens,
                codes,
                len(ids),
                int(lens.sum()),
                int(ids.sum()),
                0,
            )

    def replace_from(self, data: dict[str, Any], video_ids: Iterable[str]) -> None:
        """Replace `video_ids` with their rows in `data` (`SearchReads.keyword_postings` of
        those videos); a video without rows there is dropped."""
        vocab: Sequence[str] = data["vocab"]
        terms: dict[int, list[str]] = {}
        for tid, cid, tf in zip(
            data["tids"].tolist(),
            data["posting_chunks"].tolist(),
            data["tfs"].tolist(),
            strict=True,
        ):
            terms.setdefault(cid, []).extend([vocab[tid]] * tf)  # tf copies: same Counter
        chunks: dict[str, list[int]] = {}
        for cid, vid in zip(data["chunk_ids"].tolist(), data["videos"], strict=True):
            chunks.setdefault(vid, []).append(cid)
        with self._lock:
            for vid in video_ids:
                ids = sorted(chunks.get(vid, []))
                self.replace_video(vid, ids, [terms.get(c, []) for c in ids])

    def _code(self, video_id: str) -> int:
        return self._codes.setdefault(video_id, len(self._codes))

    def replace_video(
        self, video_id: str, chunk_ids: Sequence[int], terms: Sequence[Sequence[str]]
    ) -> None:
        """A video's new chunks (ids, and each chunk's index terms in order) replace its old
        ones. Nothing happens before `load`: the first search loads the tables as they are."""
        with self._lock:
            if self._snap is None:
                return
            snap = self._without(self._snap, video_id)
            if chunk_ids:
                snap = self._with(snap, video_id, chunk_ids, terms)
            self._snap = self._compacted(snap)

    def drop_video(self, video_id: str) -> None:
        self.replace_video(video_id, [], [])

    def _without(self, snap: _Snapshot, video_id: str) -> _Snapshot:
        rows = self._video_rows.pop(video_id, None)
        if rows is None or not len(rows):
            return snap
        codes = snap.codes.copy()
        codes[rows] = DEAD
        return _Snapshot(
            snap.segments,
            snap.chunk_ids,
            snap.lengths,
            codes,
            snap.live - len(rows),
            snap.length_sum - int(snap.lengths[rows].sum()),
            snap.id_sum - int(snap.chunk_ids[rows].sum()),
            snap.dead + len(rows),
        )

    def _with(
        self,
        snap: _Snapshot,
        video_id: str,
        chunk_ids: Sequence[int],
        terms: Sequence[Sequence[str]],
    ) -> _Snapshot:
        base = len(snap.chunk_ids)
        tids: list[int] = []
        rows: list[int] = []
        tfs: list[int] = []
        vocab = self._vocab
        for row, chunk_terms in enumerate(terms, start=base):
            for term, tf in Counter(chunk_terms).items():
                tid = vocab.get(term)
                if tid is None:
                    tid = vocab[term] = len(vocab)
                tids.append(tid)
                rows.append(row)
                tfs.append(tf)
        new_ids = np.asarray(chunk_ids, dtype=np.int64)
        new_lens = np.asarray([len(t) for t in terms], dtype=np.int32)
        code = self._code(video_id)
        self._video_rows[video_id] = np.arange(base, base + len(new_ids), dtype=np.int32)
        segments = list(snap.segments)
        if tids:
            segments.append(
                _segment(
                    np.asarray(tids, dtype=np.int32),
                    np.asarray(rows, dtype=np.int32),
                    np.asarray(tfs, dtype=np.int32),
                )
            )
        while len(segments) >= 2 and segments[-1].postings * 2 >= segments[-2].postings:
            segments[-2:] = [_merge(segments[-2:])]
        return _Snapshot(
            tuple(segments),
            np.concatenate([snap.chunk_ids, new_ids]),
            np.concatenate([snap.lengths, new_lens]),
            np.concatenate([snap.codes, np.full(len(new_ids), code, dtype=np.int32)]),
            snap.live + len(new_ids),
            snap.length_sum + int(new_lens.sum()),
            snap.id_sum + int(new_ids.sum()),
            snap.dead,
        )

    def _compacted(self, snap: _Snapshot) -> _Snapshot:
        """Drop dead rows and their postings once they are half of all rows."""
        if not snap.dead or snap.dead * 2 < len(snap.chunk_ids):
            return snap
        keep = snap.codes != DEAD
        segments = (_merge(snap.segments, keep),) if snap.segments else ()
        codes = snap.codes[keep]
        self._video_rows = _rows_by_code(codes, self._codes)
        return _Snapshot(
            tuple(s for s in segments if s.postings),
            snap.chunk_ids[keep],
            snap.lengths[keep],
            codes,
            snap.live,
            snap.length_sum,
            snap.id_sum,
            0,
        )

    # -- reads ---------------------------------------------------------------------------------
    def _postings(self, snap: _Snapshot, term: str) -> tuple[Int32Array, Int32Array]:
        """A term's live postings: rows (ascending within a segment) and term frequencies."""
        tid = self._vocab.get(term)
        if tid is None:
            return np.zeros(0, np.int32), np.zeros(0, np.int32)
        parts = [seg.of(tid) for seg in snap.segments]
        parts = [p for p in parts if len(p[0])]
        if not parts:
            return np.zeros(0, np.int32), np.zeros(0, np.int32)
        rows = parts[0][0] if len(parts) == 1 else np.concatenate([p[0] for p in parts])
        tfs = parts[0][1] if len(parts) == 1 else np.concatenate([p[1] for p in parts])
        if snap.dead:
            alive = snap.codes[rows] != DEAD
            return rows[alive], tfs[alive]
        return rows, tfs

    def top(
        self, terms: Iterable[str], *, limit: int, videos: Iterable[str] | None = None
    ) -> list[tuple[int, float]]:
        """The best `limit` chunks as (chunk id, BM25 score), best first, ties by chunk id:
        what `store.bm25.bm25_top` answers over the same tables."""
        snap = self._snap
        ranked = self._ranked(snap, terms, limit, videos) if snap is not None else None
        if snap is None or ranked is None:
            return []
        rows, scores, _ = ranked
        return [(int(c), float(s)) for c, s in zip(snap.chunk_ids[rows], scores, strict=True)]

    def top_covered(
        self, terms: Iterable[str], *, limit: int, videos: Iterable[str] | None = None
    ) -> list[tuple[int, float, float]]:
        """`top`, each chunk with its coverage: the share of the query terms' IDF mass the
        chunk holds, in (0, 1].

        Hybrid fusion weights a keyword hit by it (see `fusion`): BM25 ranks a chunk that
        holds one common word of a long question first when no chunk holds more, and the
        rank alone cannot tell that from an exact match. A term no chunk holds counts with
        the IDF of a term held once, so a query whose rare words the index does not have
        (a paraphrase, an ASR misspelling) gives every chunk a low coverage.

        Only the returned rows are looked up (a binary search in each term's postings,
        which a segment keeps sorted by row), so this costs next to nothing over `top`;
        adding up every posting's share took a third more time at 100k chunks.
        """
        snap = self._snap
        ranked = self._ranked(snap, terms, limit, videos) if snap is not None else None
        if snap is None or ranked is None:
            return []
        rows, scores, idfs = ranked
        held = np.zeros(len(rows), dtype=np.float64)
        for term, idf in idfs.items():
            held += idf * self._holds(snap, term, rows)
        mass = sum(idfs.values())
        ids = snap.chunk_ids[rows]
        return [
            (int(c), float(s), float(h / mass)) for c, s, h in zip(ids, scores, held, strict=True)
        ]

    def _ranked(
        self,
        snap: _Snapshot,
        terms: Iterable[str],
        limit: int,
        videos: Iterable[str] | None,
    ) -> tuple[Int32Array, npt.NDArray[np.float64], dict[str, float]] | None:
        """The best rows in order, their scores, and each query term's IDF (a term with no
        posting gets that of a term held once); None when nothing can be ranked."""
        wanted = sorted(set(terms))
        if not wanted or limit < 1 or not snap.live:
            return None
        n = float(snap.live)
        avgdl = snap.length_sum / snap.live
        scores = np.zeros(len(snap.chunk_ids), dtype=np.float64)
        idfs: dict[str, float] = {}
        for term in wanted:
            rows, tfs = self._postings(snap, term)
            df = float(len(rows))
            idf = idfs[term] = math.log(1 + (n - max(df, 1.0) + 0.5) / (max(df, 1.0) + 0.5))
            if not df:
                continue
            tf = tfs.astype(np.float64)
            length = snap.lengths[rows].astype(np.float64)
            scores[rows] += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avgdl))
        found = np.flatnonzero(scores)
        if videos is not None:
            allowed = np.asarray(
                [self._codes[v] for v in set(videos) if v in self._codes], dtype=np.int32
            )
            found = found[np.isin(snap.codes[found], allowed)]
        best = scores[found]
        if len(found) > limit:  # the limit-th best score; every tie with it stays for the ids
            kth = np.partition(best, len(best) - limit)[len(best) - limit]
            keep = best >= kth
            found, best = found[keep], best[keep]
        order = np.lexsort((snap.chunk_ids[found], -best))[:limit]
        return found[order].astype(np.int32), best[order], idfs

    def _holds(self, snap: _Snapshot, term: str, rows: Int32Array) -> npt.NDArray[np.bool_]:
        """Which of `rows` have a posting for `term` (dead rows never are asked about)."""
        out = np.zeros(len(rows), dtype=bool)
        tid = self._vocab.get(term)
        if tid is None:
            return out
        for seg in snap.segments:
            postings, _ = seg.of(tid)  # ascending rows: `_segment` sorts by term, then row
            if len(postings):
                at = np.minimum(np.searchsorted(postings, rows), len(postings) - 1)
                out |= postings[at] == rows
        return out

    def chunks_with_all_terms(self, terms: Sequence[str]) -> set[int]:
        """Chunks with a posting for every one of `terms` (as `SearchReads` answers)."""
        snap = self._snap
        if snap is None or not terms:
            return set()
        common: Int32Array | None = None
        for term in sorted(set(terms), key=lambda t: self._df_hint(snap, t)):
            rows, _ = self._postings(snap, term)
            common = np.unique(rows) if common is None else np.intersect1d(common, rows)
            if not len(common):
                return set()
        assert common is not None
        return set(snap.chunk_ids[common].tolist())

    def _df_hint(self, snap: _Snapshot, term: str) -> int:
        tid = self._vocab.get(term)
        if tid is None:
            return 0
        return sum(len(seg.of(tid)[0]) for seg in snap.segments)


def _rows_by_code(codes: Int32Array, by_video: dict[str, int]) -> dict[str, Int32Array]:
    """Each video's live rows."""
    live = np.flatnonzero(codes != DEAD).astype(np.int32)
    if not len(live):
        return {}
    order = np.argsort(codes[live], kind="stable")
    rows = live[order]
    present, starts = np.unique(codes[rows], return_index=True)
    bounds = [*starts.tolist(), len(rows)]
    name = {code: video for video, code in by_video.items()}
    return {
        name[int(code)]: rows[bounds[i] : bounds[i + 1]] for i, code in enumerate(present.tolist())
    }
