"""BM25 (k1 1.2, b 0.75) over the postings table, in one SQL query: the keyword side of search.

Each posting carries its chunk's length, so an unfiltered search reads only the postings of
its terms: with postings sorted by term, that touches only the row groups holding them. The
matching postings are read once (`MATERIALIZED`) for both the document frequencies and the
scores. Document frequencies always come from the postings themselves; the corpus figures
(chunk count, average length) are the caller's - the engine keeps them until the library
changes - or computed in the query when none are given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

K1 = 1.2
B = 0.75

_QUERY = """
WITH q AS (SELECT DISTINCT unnest(?::VARCHAR[]) AS term),
stats AS ({stats}),
hits AS MATERIALIZED (
    SELECT p.term, p.chunk_id, p.tf, p.length FROM postings p
    WHERE p.term IN (SELECT term FROM q)
),
df AS (SELECT term, count(*)::DOUBLE AS df FROM hits GROUP BY term)
SELECT h.chunk_id,
       sum(ln(1 + (stats.n - df.df + 0.5) / (df.df + 0.5))
           * h.tf * (? + 1) / (h.tf + ? * (1 - ? + ? * h.length / stats.avgdl))) AS score
FROM hits h
JOIN df USING (term)
CROSS JOIN stats
{where}
GROUP BY h.chunk_id
ORDER BY score DESC, h.chunk_id
LIMIT ?
"""
_STATS_SQL = "SELECT count(*)::DOUBLE AS n, coalesce(avg(length), 1)::DOUBLE AS avgdl FROM chunks"
_GIVEN_STATS = "SELECT ?::DOUBLE AS n, ?::DOUBLE AS avgdl"
_IN_VIDEOS = (
    "WHERE h.chunk_id IN (SELECT id FROM chunks WHERE video_id IN (SELECT unnest(?::VARCHAR[])))"
)


@dataclass(frozen=True, slots=True)
class CorpusStats:
    """What BM25 needs of the whole index besides the postings of the query's terms."""

    chunks: int
    average_length: float


def corpus_stats(conn: duckdb.DuckDBPyConnection) -> CorpusStats:
    n, avgdl = conn.execute(_STATS_SQL).fetchall()[0]
    return CorpusStats(int(n), float(avgdl))


def bm25_top(
    conn: duckdb.DuckDBPyConnection,
    terms: Sequence[str],
    *,
    limit: int,
    videos: Sequence[str] | None = None,
    stats: CorpusStats | None = None,
) -> list[tuple[int, float]]:
    """The best `limit` chunks for `terms` as (chunk id, score), best first."""
    if not terms:
        return []
    params: list[object] = [list(terms)]
    if stats is not None:
        params += [float(stats.chunks), stats.average_length]
    params += [K1, K1, B, B]
    where = ""
    if videos is not None:
        where = _IN_VIDEOS
        params.append(list(videos))
    params.append(limit)
    sql = _QUERY.format(stats=_STATS_SQL if stats is None else _GIVEN_STATS, where=where)
    rows = conn.execute(sql, params).fetchall()
    return [(int(r[0]), float(r[1])) for r in rows]
