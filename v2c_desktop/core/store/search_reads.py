"""Every read the search engine and its indexer make, behind typed methods.

The search package ranks, merges and snippets; this module is the only place that knows the
index tables (chunks, postings, vectors, manifests) and the video tables it joins. Reads go
through one DuckDB cursor per thread, never the store's lock, so a search does not wait
behind an import's transaction: DuckDB gives each cursor its own snapshot.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import duckdb

from ..domain.videos import ORIGINS, Video
from ..errors import bad_request, not_found
from .bm25 import CorpusStats, bm25_top, corpus_stats
from .search_index import Manifest, manifest_of
from .videos import VIDEO_SELECT, video_from_row

if TYPE_CHECKING:
    from .database import LibraryStore

_STATE_SQL = """
WITH s AS (
    SELECT t.video_id,
           coalesce(m.transcript_hash = t.content_hash, false) AS keyword_ok,
           coalesce(m.embed_model = $model AND m.vectors_hash = t.content_hash, false)
               AS vectors_ok,
           coalesce(m.chunk_count, 0) AS chunks
    FROM transcripts t LEFT JOIN index_manifest m ON m.video_id = t.video_id
)
SELECT 'count' AS kind, NULL AS video_id, count(*) AS videos,
       count(*) FILTER (WHERE keyword_ok) AS indexed,
       coalesce(sum(chunks) FILTER (WHERE keyword_ok), 0) AS chunks,
       count(*) FILTER (WHERE keyword_ok AND vectors_ok) AS with_vectors
FROM s
UNION ALL SELECT 'keyword', video_id, 0, 0, 0, 0 FROM s WHERE NOT keyword_ok
UNION ALL SELECT 'vectors', video_id, 0, 0, 0, 0 FROM s
    WHERE $list_vectors AND keyword_ok AND NOT vectors_ok
UNION ALL SELECT 'gone', m.video_id, 0, 0, 0, 0 FROM index_manifest m
    WHERE NOT EXISTS (SELECT 1 FROM transcripts t WHERE t.video_id = m.video_id)
"""

# The common case, in one cheap aggregate (half the cost of _STATE_SQL): every transcript has
# an index manifest of that very transcript, and no manifest is left of a deleted video. The
# sums of 64-bit hashes of (video, transcript hash) on both sides are then equal; a stale or
# missing entry changes its side's sum (a collision would need a 2^-64 coincidence).
_FINGERPRINT_SQL = """
SELECT count(*), coalesce(sum(hash(video_id, transcript_hash)), 0),
       coalesce(sum(chunk_count), 0),
       count(*) FILTER (WHERE embed_model = ? AND vectors_hash = transcript_hash),
       (SELECT count(*) FROM transcripts),
       (SELECT coalesce(sum(hash(video_id, content_hash)), 0) FROM transcripts)
FROM index_manifest
"""

_CHUNK_COLUMNS = 'SELECT id, video_id, start, "end", first_seg, last_seg, chapter, text'
_HIT_ROWS_SQL = f"{_CHUNK_COLUMNS} FROM chunks WHERE id IN (SELECT unnest(?::BIGINT[]))"


def _chunk_row(r: Sequence[Any]) -> ChunkRow:
    """A row of `_CHUNK_COLUMNS` as a `ChunkRow`."""
    return ChunkRow(
        int(r[0]),
        str(r[1]),
        float(r[2]),
        float(r[3]),
        int(r[4]),
        int(r[5]),
        None if r[6] is None else int(r[6]),
        str(r[7]),
    )


@dataclass(frozen=True, slots=True)
class LibraryState:
    """The library against its index, from one query: sizes, what is stale, what is gone."""

    videos: int
    indexed_videos: int
    chunks: int
    with_vectors: int  # videos whose manifest says their vectors of this model are current
    keyword_stale: tuple[str, ...] = ()
    vectors_stale: tuple[str, ...] = ()  # keyword index current, vectors missing or stale
    gone: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A stored chunk as a hit needs it: where it is, which segments, which chapter."""

    id: int
    video_id: str
    start: float
    end: float
    first_seg: int
    last_seg: int
    chapter: int | None
    text: str


@dataclass(frozen=True, slots=True)
class VideoCard:
    """What a hit shows of its video: the video and its chapter titles by index."""

    video: Video
    chapters: dict[int, str] = field(default_factory=dict)

    def chapter_title(self, idx: int | None) -> str | None:
        return None if idx is None else self.chapters.get(idx)


@dataclass(frozen=True, slots=True)
class VideoFilter:
    """Which videos a search may return; every field set narrows it (None: no filter).

    Dates are ISO `YYYY-MM-DD`; a date filter leaves out videos without a publish date,
    since nobody can say they fall in the range, unless `include_undated` keeps them.
    """

    collection: str | None = None
    video_ids: Sequence[str] | None = None
    channel: str | None = None
    origins: Sequence[str] | None = None
    published_after: str | None = None
    published_before: str | None = None
    include_undated: bool = False


class SearchReads:
    """One per search engine; its cursors are closed with `close`."""

    def __init__(self, store: LibraryStore) -> None:
        self._store = store
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._cursors_lock = threading.Lock()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's read cursor: its own snapshot, never the store's lock."""
        cursor: duckdb.DuckDBPyConnection | None = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._store.reader()
            self._local.cursor = cursor
            with self._cursors_lock:
                self._cursors.append(cursor)
        return cursor

    def close(self) -> None:
        with self._cursors_lock:
            cursors, self._cursors = self._cursors, []
        for cursor in cursors:
            with contextlib.suppress(duckdb.Error):
                cursor.close()
        self._local = threading.local()

    def _rows(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        return self.cursor().execute(sql, params).fetchall()

    # -- the index against the library ---------------------------------------------------------
    def library_state(self, model: str | None, *, list_vectors: bool) -> LibraryState:
        """Sizes and staleness of the index, with the stale and gone videos listed."""
        rows = self._rows(_STATE_SQL, {"model": model, "list_vectors": list_vectors})
        lists: dict[str, list[str]] = {"keyword": [], "vectors": [], "gone": []}
        counts = (0, 0, 0, 0)
        for kind, vid, videos, indexed, chunks, with_vectors in rows:
            if kind == "count":
                counts = (int(videos), int(indexed), int(chunks), int(with_vectors))
            else:
                lists[str(kind)].append(str(vid))
        return LibraryState(
            *counts,
            keyword_stale=tuple(sorted(lists["keyword"])),
            vectors_stale=tuple(sorted(lists["vectors"])),
            gone=tuple(sorted(lists["gone"])),
        )

    def clean_state(self, model: str | None) -> LibraryState | None:
        """The sizes from one cheap query when every video is indexed, else None."""
        indexed, indexed_sum, chunks, with_vectors, videos, videos_sum = self._rows(
            _FINGERPRINT_SQL, [model]
        )[0]
        if indexed == videos and indexed_sum == videos_sum:
            return LibraryState(int(videos), int(indexed), int(chunks), int(with_vectors))
        return None

    def videos_with_current_vectors(self, model: str) -> set[str]:
        rows = self._rows(
            "SELECT m.video_id FROM index_manifest m JOIN transcripts t"
            " ON t.video_id = m.video_id"
            " WHERE m.embed_model = ? AND m.vectors_hash = t.content_hash",
            [model],
        )
        return {str(r[0]) for r in rows}

    def manifest(self, video_id: str) -> tuple[str | None, Manifest | None]:
        """The video's current transcript hash (None once deleted) and its index manifest."""
        return manifest_of(self.cursor(), video_id)

    def video_chunks(self, video_id: str) -> tuple[list[int], list[str]]:
        """A video's chunk ids and texts, in order."""
        rows = self._rows("SELECT id, text FROM chunks WHERE video_id = ? ORDER BY idx", [video_id])
        return [int(r[0]) for r in rows], [str(r[1]) for r in rows]

    # -- the keyword side ----------------------------------------------------------------------
    def corpus_stats(self) -> CorpusStats:
        return corpus_stats(self.cursor())

    def bm25_top(
        self,
        terms: Sequence[str],
        *,
        limit: int,
        videos: Sequence[str] | None = None,
        stats: CorpusStats | None = None,
    ) -> list[tuple[int, float]]:
        return bm25_top(self.cursor(), terms, limit=limit, videos=videos, stats=stats)

    def chunks_with_all_terms(self, terms: Sequence[str]) -> set[int]:
        """Chunks with a posting for every one of `terms`."""
        rows = self._rows(
            "SELECT chunk_id FROM postings WHERE term IN (SELECT unnest(?::VARCHAR[]))"
            " GROUP BY chunk_id HAVING count(DISTINCT term) = ?",
            [list(terms), len(terms)],
        )
        return {int(r[0]) for r in rows}

    def chunk_fingerprints(self) -> dict[str, tuple[int, int]]:
        """Each video's (chunk count, sum of chunk ids): the in-memory keyword index
        compares its own against these to find the videos it is out of step on."""
        rows = self._rows("SELECT video_id, count(*), sum(id) FROM chunks GROUP BY video_id")
        return {str(r[0]): (int(r[1]), int(r[2])) for r in rows}

    def chunk_fingerprint(self) -> tuple[int, int]:
        """(chunks, sum of their ids): ids only grow, so any change moves one of them."""
        n, total = self._rows("SELECT count(*), coalesce(sum(id), 0) FROM chunks")[0]
        return int(n), int(total)

    def keyword_postings(self, video_ids: Sequence[str] | None = None) -> dict[str, Any]:
        """Chunks (id, video, length) and their postings (term id, chunk id, tf) with the
        terms the ids point into, as numpy arrays, from one snapshot: what the in-memory
        keyword index is built from (all videos, or only `video_ids`)."""
        cursor = self.cursor()
        where, params = "", []
        if video_ids is not None:
            where = "WHERE video_id IN (SELECT unnest(?::VARCHAR[]))"
            params = [list(video_ids)]
        cursor.execute("BEGIN TRANSACTION")
        try:
            chunks = cursor.execute(
                f"SELECT id, video_id, length FROM chunks {where} ORDER BY id", params
            ).fetchnumpy()
            picked = (
                "SELECT term, chunk_id, tf FROM postings"
                f" WHERE chunk_id IN (SELECT id FROM chunks {where})"
            )
            vocab = [
                str(r[0])
                for r in cursor.execute(
                    f"SELECT DISTINCT term FROM ({picked}) ORDER BY term", params
                ).fetchall()
            ]
            postings = cursor.execute(
                f"WITH p AS ({picked}), v AS (SELECT term, (row_number() OVER (ORDER BY term)"
                " - 1)::INTEGER AS tid FROM (SELECT DISTINCT term FROM p))"
                " SELECT v.tid, p.chunk_id, p.tf FROM p JOIN v USING (term)",
                params,
            ).fetchnumpy()
        finally:
            cursor.execute("COMMIT")
        return {
            "vocab": vocab,
            "chunk_ids": chunks["id"],
            "videos": [str(v) for v in chunks["video_id"]],
            "lengths": chunks["length"],
            "tids": postings["tid"],
            "posting_chunks": postings["chunk_id"],
            "tfs": postings["tf"],
        }

    def chunk_texts(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        rows = self._rows(
            "SELECT id, text FROM chunks WHERE id IN (SELECT unnest(?::BIGINT[]))",
            [list(chunk_ids)],
        )
        return {int(r[0]): str(r[1]) for r in rows}

    # -- hits ----------------------------------------------------------------------------------
    def chunk_rows(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        """The chunks that still exist, by id."""
        rows = self._rows(_HIT_ROWS_SQL, [list(chunk_ids)])
        return {int(r[0]): _chunk_row(r) for r in rows}

    def each_video_chunks(
        self, keep_going: Callable[[], bool], videos_per_query: int = 256
    ) -> Iterator[tuple[str, list[ChunkRow]]]:
        """Every video's chunk rows in id order, a video at a time (what the in-memory chunk
        rows are filled from); `keep_going` is asked before each query and a no ends it.

        One query per `videos_per_query` videos, not one for the whole table: sorting every
        chunk's text at once would hold about 0.55 GB at 1M chunks, and a short query keeps
        the cursor free for the library to close. Each video's rows come from one query, so
        a video is never given half-read or mixed from two versions.
        """
        cursor = self.cursor()
        videos = [
            str(r[0])
            for r in cursor.execute(
                "SELECT DISTINCT video_id FROM chunks ORDER BY video_id"
            ).fetchall()
        ]
        for start in range(0, len(videos), videos_per_query):
            if not keep_going():
                return
            rows = cursor.execute(
                f"{_CHUNK_COLUMNS} FROM chunks WHERE video_id IN (SELECT unnest(?::VARCHAR[]))"
                " ORDER BY video_id, id",
                [videos[start : start + videos_per_query]],
            ).fetchall()
            video: str | None = None
            held: list[ChunkRow] = []
            for r in rows:
                row = _chunk_row(r)
                if row.video_id != video:
                    if video is not None:
                        yield video, held
                    video, held = row.video_id, []
                held.append(row)
            if video is not None:
                yield video, held

    def segment_texts(self, ranges: Sequence[tuple[str, int, int]]) -> list[list[str]]:
        """The segment texts of each (video, first, last) range, in one query (a branch per
        range, so each gets its own filter pushed into the scan)."""
        if not ranges:
            return []
        branches = " UNION ALL ".join(
            f"SELECT {i} AS r, idx, text FROM segments WHERE video_id = ? AND idx BETWEEN ? AND ?"
            for i in range(len(ranges))
        )
        params: list[object] = []
        for video_id, first, last in ranges:
            params.extend([video_id, first, last])
        parts: list[list[str]] = [[] for _ in ranges]
        for r, _, text in self._rows(f"{branches} ORDER BY r, idx", params):
            parts[int(r)].append(str(text))
        return parts

    def video_cards(self) -> dict[str, VideoCard]:
        """Every video's card (the engine keeps them until the library changes)."""
        chapters: dict[str, dict[int, str]] = {}
        for vid, idx, title in self._rows("SELECT video_id, idx, title FROM chapters"):
            chapters.setdefault(str(vid), {})[int(idx)] = str(title)
        return {
            str(row[0]): VideoCard(video_from_row(row), chapters.get(str(row[0]), {}))
            for row in self._rows(f"SELECT {VIDEO_SELECT} FROM videos v")
        }

    # -- filters -------------------------------------------------------------------------------
    def allowed_videos(self, where: VideoFilter) -> list[str] | None:
        """Video ids matching every filter, or None when no filter is set (all allowed)."""
        clauses, params = self._filter_clauses(where, dates=True)
        if not clauses:
            return None
        sql = "SELECT v.id FROM videos v WHERE " + " AND ".join(clauses)
        return [str(r[0]) for r in self._rows(sql, params)]

    def undated_videos(self, where: VideoFilter) -> int:
        """How many videos every filter but the dates allows that have no publish date: the
        ones a date filter leaves out only for that."""
        clauses, params = self._filter_clauses(where, dates=False)
        sql = "SELECT count(*) FROM videos v WHERE " + " AND ".join(
            [*clauses, "v.published IS NULL"]
        )
        return int(self._rows(sql, params)[0][0])

    def _filter_clauses(self, where: VideoFilter, *, dates: bool) -> tuple[list[str], list[object]]:
        clauses: list[str] = []
        params: list[object] = []
        if where.collection:
            rows = self._rows(
                "SELECT id FROM collections WHERE id = ? OR lower(name) = lower(?)",
                [where.collection, where.collection],
            )
            if not rows:
                raise not_found(f"no collection {where.collection!r}", "run `v2c collections list`")
            clauses.append(
                "v.id IN (SELECT video_id FROM collection_videos WHERE collection_id = ?)"
            )
            params.append(rows[0][0])
        if where.video_ids is not None:
            clauses.append("v.id IN (SELECT unnest(?::VARCHAR[]))")
            params.append(list(where.video_ids))
        if where.channel:
            clauses.append("(lower(v.channel) = lower(?) OR v.channel_id = ?)")
            params.extend([where.channel, where.channel])
        if where.origins:
            unknown = [o for o in where.origins if o not in ORIGINS]
            if unknown:
                raise bad_request(
                    f"unknown origin {unknown[0]!r}", f"use one of: {', '.join(ORIGINS)}"
                )
            clauses.append(
                "v.id IN (SELECT video_id FROM transcripts WHERE origin IN"
                " (SELECT unnest(?::VARCHAR[])))"
            )
            params.append(list(where.origins))
        for value, op in ((where.published_after, ">="), (where.published_before, "<=")):
            if value and dates:
                try:
                    self._rows("SELECT ?::DATE", [value])
                except duckdb.Error as exc:
                    raise bad_request(f"cannot read the date {value!r}", "use YYYY-MM-DD") from exc
                if where.include_undated:
                    clauses.append(f"(v.published IS NULL OR v.published {op} ?::DATE)")
                else:
                    clauses.append(f"v.published IS NOT NULL AND v.published {op} ?::DATE")
                params.append(value)
        return clauses, params
