"""Resolving search filters to the set of videos a search may return."""

from __future__ import annotations

import duckdb

from ..domain.videos import ORIGINS
from ..errors import bad_request, not_found
from .request import SearchRequest


def allowed_videos(conn: duckdb.DuckDBPyConnection, request: SearchRequest) -> list[str] | None:
    """Video ids matching every filter, or None when no filter is set (everything allowed)."""
    clauses: list[str] = []
    params: list[object] = []
    if request.collection:
        rows = conn.execute(
            "SELECT id FROM collections WHERE id = ? OR lower(name) = lower(?)",
            [request.collection, request.collection],
        ).fetchall()
        if not rows:
            raise not_found(f"no collection {request.collection!r}", "run `v2c collections list`")
        clauses.append("v.id IN (SELECT video_id FROM collection_videos WHERE collection_id = ?)")
        params.append(rows[0][0])
    if request.video_ids is not None:
        clauses.append("v.id IN (SELECT unnest(?::VARCHAR[]))")
        params.append(list(request.video_ids))
    if request.channel:
        clauses.append("(lower(v.channel) = lower(?) OR v.channel_id = ?)")
        params.extend([request.channel, request.channel])
    if request.origins:
        unknown = [o for o in request.origins if o not in ORIGINS]
        if unknown:
            raise bad_request(f"unknown origin {unknown[0]!r}", f"use one of: {', '.join(ORIGINS)}")
        clauses.append(
            "v.id IN (SELECT video_id FROM transcripts WHERE origin IN"
            " (SELECT unnest(?::VARCHAR[])))"
        )
        params.append(list(request.origins))
    for value, op in ((request.published_after, ">="), (request.published_before, "<=")):
        if value:
            try:
                conn.execute("SELECT ?::DATE", [value]).fetchall()
            except duckdb.Error as exc:
                raise bad_request(f"cannot read the date {value!r}", "use YYYY-MM-DD") from exc
            clauses.append(f"v.published IS NOT NULL AND v.published {op} ?::DATE")
            params.append(value)
    if not clauses:
        return None
    sql = "SELECT v.id FROM videos v WHERE " + " AND ".join(clauses)
    return [str(r[0]) for r in conn.execute(sql, params).fetchall()]
