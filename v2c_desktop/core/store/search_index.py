"""The search index tables: chunks, BM25 postings, vectors and the per-video manifest.

A posting is (term, chunk, tf, chunk length): the length is the chunk's, repeated so that
BM25 reads postings alone. Postings are kept physically sorted by term: DuckDB prunes row
groups by their min/max (zone maps), so a query that looks up three terms reads a few row
groups instead of the whole table (about 20 ms over 5M postings, measured). New postings are
appended unsorted and the table is rewritten in term order once the unsorted tail grows past
a fraction of it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import numpy.typing as npt

UNSORTED_FRACTION = 0.2
UNSORTED_MIN_ROWS = 50_000


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk as the index stores it; `terms` are its BM25 index terms."""

    idx: int
    start: float
    end: float
    first_seg: int
    last_seg: int
    chapter: int | None
    text: str
    terms: Sequence[str]


@dataclass(frozen=True, slots=True)
class Manifest:
    video_id: str
    transcript_hash: str
    chunk_count: int
    embed_model: str | None
    vectors_hash: str | None


def _state(conn: duckdb.DuckDBPyConnection, key: str) -> int:
    rows = conn.execute("SELECT value FROM index_state WHERE key = ?", [key]).fetchall()
    return int(rows[0][0]) if rows else 0


def _set_state(conn: duckdb.DuckDBPyConnection, key: str, value: int) -> None:
    conn.execute("DELETE FROM index_state WHERE key = ?", [key])
    conn.execute("INSERT INTO index_state VALUES (?, ?)", [key, value])


def delete_video_index(conn: duckdb.DuckDBPyConnection, video_id: str) -> None:
    conn.execute(
        "DELETE FROM postings WHERE chunk_id IN (SELECT id FROM chunks WHERE video_id = ?)",
        [video_id],
    )
    conn.execute(
        "DELETE FROM vectors WHERE chunk_id IN (SELECT id FROM chunks WHERE video_id = ?)",
        [video_id],
    )
    conn.execute("DELETE FROM chunks WHERE video_id = ?", [video_id])
    conn.execute("DELETE FROM index_manifest WHERE video_id = ?", [video_id])


def write_keyword_index(
    conn: duckdb.DuckDBPyConnection, video_id: str, transcript_hash: str, chunks: Sequence[ChunkRow]
) -> list[int]:
    """Replace a video's chunks and postings; returns the new chunk ids in chunk order."""
    delete_video_index(conn, video_id)
    n = len(chunks)
    ids = (
        [
            int(r[0])
            for r in conn.execute("SELECT nextval('chunk_ids') FROM range(?)", [n]).fetchall()
        ]
        if n
        else []
    )
    if n:
        conn.execute(
            "INSERT INTO chunks SELECT unnest(?::BIGINT[]), ?, unnest(?::INTEGER[]),"
            " unnest(?::DOUBLE[]), unnest(?::DOUBLE[]), unnest(?::INTEGER[]),"
            " unnest(?::INTEGER[]), unnest(?::INTEGER[]), unnest(?::INTEGER[]),"
            " unnest(?::VARCHAR[])",
            [
                ids,
                video_id,
                [c.idx for c in chunks],
                [c.start for c in chunks],
                [c.end for c in chunks],
                [c.first_seg for c in chunks],
                [c.last_seg for c in chunks],
                [c.chapter for c in chunks],
                [len(c.terms) for c in chunks],
                [c.text for c in chunks],
            ],
        )
        terms: list[str] = []
        chunk_ids: list[int] = []
        tfs: list[int] = []
        lengths: list[int] = []
        for cid, chunk in zip(ids, chunks, strict=True):
            for term, tf in Counter(chunk.terms).items():
                terms.append(term)
                chunk_ids.append(cid)
                tfs.append(tf)
                lengths.append(len(chunk.terms))
        if terms:
            conn.execute(
                "INSERT INTO postings SELECT unnest(?::VARCHAR[]), unnest(?::BIGINT[]),"
                " unnest(?::INTEGER[]), unnest(?::INTEGER[])",
                [terms, chunk_ids, tfs, lengths],
            )
            _set_state(conn, "unsorted_postings", _state(conn, "unsorted_postings") + len(terms))
    conn.execute(
        "INSERT INTO index_manifest VALUES (?, ?, ?, NULL, NULL, current_localtimestamp())",
        [video_id, transcript_hash, n],
    )
    return ids


def postings_need_sorting(conn: duckdb.DuckDBPyConnection) -> bool:
    unsorted = _state(conn, "unsorted_postings")
    if unsorted == 0:
        return False
    total = int(conn.execute("SELECT count(*) FROM postings").fetchall()[0][0])
    return unsorted >= UNSORTED_MIN_ROWS or unsorted >= UNSORTED_FRACTION * max(total, 1)


def sort_postings(conn: duckdb.DuckDBPyConnection) -> None:
    """Rewrite postings in term order (inside the caller's transaction)."""
    conn.execute(
        "CREATE TABLE postings_sorted AS"
        " SELECT term, chunk_id, tf, length FROM postings ORDER BY term, chunk_id"
    )
    conn.execute("DROP TABLE postings")
    conn.execute("ALTER TABLE postings_sorted RENAME TO postings")
    _set_state(conn, "unsorted_postings", 0)


def write_vectors(
    conn: duckdb.DuckDBPyConnection,
    video_id: str,
    model: str,
    chunk_ids: Sequence[int],
    matrix: npt.NDArray[np.float32],
    vectors_hash: str,
) -> bool:
    """Replace a video's vectors; False (nothing written) when they are stale.

    Embedding takes seconds to minutes, and the video may be saved again (re-chunked) or
    deleted meanwhile: vectors are only written for the video's current chunks, made from
    the transcript its manifest names, so no vector ever outlives its chunk.
    """
    manifest = conn.execute(
        "SELECT transcript_hash FROM index_manifest WHERE video_id = ?", [video_id]
    ).fetchall()
    if not manifest or manifest[0][0] != vectors_hash:
        return False
    current = conn.execute(
        "SELECT id FROM chunks WHERE video_id = ? ORDER BY idx", [video_id]
    ).fetchall()
    if [int(r[0]) for r in current] != [int(c) for c in chunk_ids]:
        return False
    conn.execute(
        "DELETE FROM vectors WHERE chunk_id IN (SELECT id FROM chunks WHERE video_id = ?)",
        [video_id],
    )
    if len(chunk_ids):
        rows = np.ascontiguousarray(matrix, dtype=np.float32)
        conn.execute(
            "INSERT INTO vectors SELECT unnest(?::BIGINT[]), ?, ?, unnest(?::BLOB[])",
            [list(chunk_ids), model, rows.shape[1], [row.tobytes() for row in rows]],
        )
    conn.execute(
        "UPDATE index_manifest SET embed_model = ?, vectors_hash = ? WHERE video_id = ?",
        [model, vectors_hash, video_id],
    )
    return True


def manifests(conn: duckdb.DuckDBPyConnection) -> dict[str, Manifest]:
    rows = conn.execute(
        "SELECT video_id, transcript_hash, chunk_count, embed_model, vectors_hash"
        " FROM index_manifest"
    ).fetchall()
    return {r[0]: Manifest(r[0], r[1], int(r[2]), r[3], r[4]) for r in rows}


def load_vectors(
    conn: duckdb.DuckDBPyConnection, model: str
) -> tuple[npt.NDArray[np.int64], list[str], npt.NDArray[np.float32]]:
    """Every vector of `model`: chunk ids, their video ids, and the (n, d) matrix (read-only).

    Vectors are stored as raw float32 bytes: loading 100k x 384 takes about 0.2 s this way,
    against seconds for DuckDB list columns turned into Python lists.
    """
    data = conn.execute(
        "SELECT v.chunk_id, c.video_id, v.dims, v.vec FROM vectors v"
        " JOIN chunks c ON c.id = v.chunk_id WHERE v.model = ? ORDER BY v.chunk_id",
        [model],
    ).fetchnumpy()
    ids = np.asarray(data["chunk_id"], dtype=np.int64)
    if len(ids) == 0:
        return ids, [], np.zeros((0, 0), dtype=np.float32)
    dims = int(data["dims"][0])
    # a view of the joined bytes, not a copy: the vector index normalises it into a new array
    matrix = np.frombuffer(b"".join(data["vec"]), dtype=np.float32).reshape(len(ids), dims)
    return ids, [str(v) for v in data["video_id"]], matrix


def manifest_of(
    conn: duckdb.DuckDBPyConnection, video_id: str
) -> tuple[str | None, Manifest | None]:
    """The video's current transcript hash (None once deleted) and its index manifest."""
    rows = conn.execute(
        "SELECT t.content_hash, m.transcript_hash, m.chunk_count, m.embed_model,"
        " m.vectors_hash FROM transcripts t LEFT JOIN index_manifest m"
        " ON m.video_id = t.video_id WHERE t.video_id = ?",
        [video_id],
    ).fetchall()
    if not rows:
        return None, None
    current, indexed, count, model, vectors_hash = rows[0]
    if indexed is None:
        return str(current), None
    manifest = Manifest(
        video_id,
        str(indexed),
        int(count),
        None if model is None else str(model),
        None if vectors_hash is None else str(vectors_hash),
    )
    return str(current), manifest


def video_vectors(
    conn: duckdb.DuckDBPyConnection, video_id: str, model: str
) -> tuple[list[int], list[int], npt.NDArray[np.float32]] | None:
    """A video's chunks in order (first and last segments) with their `model` vectors, or
    None unless every chunk has one made from the video's current transcript."""
    data = conn.execute(
        "SELECT c.first_seg, c.last_seg, v.dims, v.vec FROM chunks c"
        " JOIN vectors v ON v.chunk_id = c.id AND v.model = ?"
        " JOIN index_manifest m ON m.video_id = c.video_id"
        " JOIN transcripts t ON t.video_id = c.video_id"
        " WHERE c.video_id = ? AND m.embed_model = ? AND m.vectors_hash = t.content_hash"
        " ORDER BY c.idx",
        [model, video_id, model],
    ).fetchnumpy()
    rows = len(data["first_seg"])
    chunks = conn.execute("SELECT count(*) FROM chunks WHERE video_id = ?", [video_id]).fetchall()
    if rows == 0 or rows != int(chunks[0][0]):
        return None
    dims = int(data["dims"][0])
    matrix = np.frombuffer(b"".join(data["vec"]), dtype=np.float32).reshape(rows, dims)
    return [int(x) for x in data["first_seg"]], [int(x) for x in data["last_seg"]], matrix
