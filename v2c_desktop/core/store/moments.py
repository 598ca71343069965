"""The key-moments cache: a model's verified moments per video, transcript, model, prompt
version and count.

A result is kept as the JSON of its `KeyMoments` (the wire codec's form). Rows of a
transcript the video no longer has are deleted when the video is saved again
(`drop_stale`), and all of a video's rows when it is removed, so a changed transcript never
shows moments chosen from its old words.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import duckdb

#: video id, transcript hash, model, prompt version, count
MomentsKey = Sequence[Any]


def get(conn: duckdb.DuckDBPyConnection, key: MomentsKey) -> Any | None:
    rows = conn.execute(
        "SELECT result FROM key_moments WHERE video_id = ? AND transcript_hash = ?"
        " AND model = ? AND prompt_version = ? AND count = ?",
        list(key),
    ).fetchall()
    return json.loads(rows[0][0]) if rows else None


def put(conn: duckdb.DuckDBPyConnection, key: MomentsKey, result: Any) -> None:
    """Keep `result`, unless the video's transcript changed (or it went) since the key was
    read: a model takes minutes, and its moments of old words must not outlive them."""
    video_id, transcript_hash = key[0], key[1]
    conn.execute(
        "INSERT OR REPLACE INTO key_moments SELECT ?, ?, ?, ?, ?, ?, current_localtimestamp()"
        " WHERE EXISTS (SELECT 1 FROM transcripts WHERE video_id = ? AND content_hash = ?)",
        [*key, json.dumps(result, ensure_ascii=False), video_id, transcript_hash],
    )


def drop_stale(conn: duckdb.DuckDBPyConnection, video_id: str) -> None:
    """Delete the video's moments of any transcript but the one it has now (none: all)."""
    conn.execute(
        "DELETE FROM key_moments WHERE video_id = ? AND transcript_hash IS DISTINCT FROM"
        " (SELECT content_hash FROM transcripts WHERE video_id = ?)",
        [video_id, video_id],
    )
