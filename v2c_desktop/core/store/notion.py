"""The SQL of the Notion pages made for videos: one per video and parent page."""

from __future__ import annotations

import duckdb


def remembered(
    conn: duckdb.DuckDBPyConnection, video_id: str, parent_id: str
) -> tuple[str, str, str] | None:
    """(page id, url, transcript hash) of the page made last time, if any."""
    rows = conn.execute(
        "SELECT page_id, url, transcript_hash FROM notion_pages"
        " WHERE video_id = ? AND parent_id = ?",
        [video_id, parent_id],
    ).fetchall()
    return (str(rows[0][0]), str(rows[0][1]), str(rows[0][2])) if rows else None


def remember(
    conn: duckdb.DuckDBPyConnection,
    video_id: str,
    parent_id: str,
    page_id: str,
    url: str,
    transcript_hash: str,
) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO notion_pages VALUES (?, ?, ?, ?, ?, current_localtimestamp())",
        [video_id, parent_id, page_id, url, transcript_hash],
    )
