"""The skip-segment tables: SponsorBlock's segments of a video, as last fetched.

`skip_fetches` has a row per video that was asked about (with the categories asked for), so a
video SponsorBlock knows nothing about is not asked again; `skip_segments` holds what came
back. A new fetch replaces both in the caller's transaction; deleting a video deletes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from ..domain.skips import SkipSegment
from ..errors import not_found
from . import videos as video_table


@dataclass(frozen=True)
class StoredSkips:
    """What the last fetch for a video brought: every segment of `categories`, by start."""

    youtube_id: str
    categories: tuple[str, ...]
    fetched_at: str
    segments: list[SkipSegment]


def delete(conn: duckdb.DuckDBPyConnection, video_id: str) -> None:
    conn.execute("DELETE FROM skip_segments WHERE video_id = ?", [video_id])
    conn.execute("DELETE FROM skip_fetches WHERE video_id = ?", [video_id])


def replace(
    conn: duckdb.DuckDBPyConnection,
    video_id: str,
    youtube_id: str,
    categories: Sequence[str],
    segments: Sequence[SkipSegment],
) -> None:
    """Keep `segments` as the video's (fetched now for `categories`), replacing earlier ones."""
    if not video_table.exists(conn, video_id):  # removed while SponsorBlock was asked
        raise not_found(f"no video {video_id!r} in the library", "it may have been removed")
    delete(conn, video_id)
    conn.execute(
        "INSERT INTO skip_fetches VALUES (?, ?, ?, current_localtimestamp())",
        [video_id, youtube_id, list(categories)],
    )
    if not segments:
        return
    ordered = sorted(segments, key=lambda s: (s.start, s.end, s.category))
    conn.execute(
        "INSERT INTO skip_segments SELECT ?, unnest(?::INTEGER[]), unnest(?::VARCHAR[]),"
        " unnest(?::DOUBLE[]), unnest(?::DOUBLE[]), unnest(?::VARCHAR[]), unnest(?::INTEGER[]),"
        " unnest(?::BOOLEAN[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::DOUBLE[])",
        [
            video_id,
            list(range(len(ordered))),
            [s.category for s in ordered],
            [s.start for s in ordered],
            [s.end for s in ordered],
            [s.uuid for s in ordered],
            [s.votes for s in ordered],
            [s.locked for s in ordered],
            [s.action_type for s in ordered],
            [s.description for s in ordered],
            [s.video_duration for s in ordered],
        ],
    )


def load(conn: duckdb.DuckDBPyConnection, video_id: str) -> StoredSkips | None:
    """The video's last fetch, or None when SponsorBlock was never asked about it."""
    fetched = conn.execute(
        "SELECT youtube_id, categories, strftime(fetched_at, '%Y-%m-%dT%H:%M:%S')"
        " FROM skip_fetches WHERE video_id = ?",
        [video_id],
    ).fetchall()
    if not fetched:
        return None
    rows = conn.execute(
        'SELECT category, start, "end", uuid, votes, locked, action_type, description,'
        " video_duration FROM skip_segments WHERE video_id = ? ORDER BY idx",
        [video_id],
    ).fetchall()
    youtube_id, categories, fetched_at = fetched[0]
    return StoredSkips(
        str(youtube_id),
        tuple(str(c) for c in categories),
        str(fetched_at),
        [
            SkipSegment(
                category=str(r[0]),
                start=float(r[1]),
                end=float(r[2]),
                uuid=str(r[3]),
                votes=int(r[4]),
                locked=bool(r[5]),
                action_type=str(r[6]),
                description=str(r[7]),
                video_duration=None if r[8] is None else float(r[8]),
            )
            for r in rows
        ],
    )
