"""The brief tables: saved briefs (their whole result, as shown) and cached map steps.

A brief is kept as the JSON of its `Brief` object (the wire codec's form), so a reopened
brief shows exactly what was shown, even after its videos change. Map steps are cached per
(video, transcript, question, model, prompt version, chunk budget, chunk): a changed
transcript, another question or a new prompt never reuses stale claims.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import duckdb

from ..errors import not_found

_TS = "strftime({}, '%Y-%m-%dT%H:%M:%S')"


def save(
    conn: duckdb.DuckDBPyConnection,
    brief_id: str,
    title: str,
    question: str,
    template: str,
    scope: dict[str, Any],
    model: str | None,
    status: str,
    result: Any,
) -> None:
    """Insert or replace a brief (a re-run keeps its id and its creation time)."""
    body = json.dumps(result, ensure_ascii=False)
    found = conn.execute("SELECT created_at FROM briefs WHERE id = ?", [brief_id]).fetchall()
    conn.execute("DELETE FROM briefs WHERE id = ?", [brief_id])
    created = "?" if found else "current_localtimestamp()"
    params: list[object] = [brief_id, title, question, template, json.dumps(scope), model, status]
    params.append(body)
    if found:
        params.append(found[0][0])
    conn.execute(
        "INSERT INTO briefs (id, title, question, template, scope, model, status, result,"
        f" created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, {created},"
        " current_localtimestamp())",
        params,
    )


def list_all(conn: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """(id, title, question, template, status, model, created, updated, scope), newest first."""
    return conn.execute(
        f"SELECT id, title, question, template, status, model, {_TS.format('created_at')},"
        f" {_TS.format('updated_at')}, scope FROM briefs ORDER BY updated_at DESC, id"
    ).fetchall()


def get(conn: duckdb.DuckDBPyConnection, brief_id: str) -> tuple[Any, str, str]:
    """The saved result (JSON), its title as the user last named it, and when it was made."""
    rows = conn.execute(
        "SELECT result, title, strftime(created_at, '%Y-%m-%dT%H:%M:%S') FROM briefs WHERE id = ?",
        [brief_id],
    ).fetchall()
    if not rows:
        raise not_found(f"no brief {brief_id!r}", "run `v2c briefs list` to see the saved briefs")
    result, title, created = rows[0]
    return json.loads(result), str(title), str(created or "")


def rename(conn: duckdb.DuckDBPyConnection, brief_id: str, title: str) -> None:
    found = conn.execute(
        "UPDATE briefs SET title = ?, updated_at = current_localtimestamp() WHERE id = ?"
        " RETURNING id",
        [title.strip()[:200] or "Untitled brief", brief_id],
    ).fetchall()
    if not found:
        raise not_found(f"no brief {brief_id!r}", "run `v2c briefs list` to see the saved briefs")


def delete(conn: duckdb.DuckDBPyConnection, brief_id: str) -> None:
    found = conn.execute("DELETE FROM briefs WHERE id = ? RETURNING id", [brief_id]).fetchall()
    if not found:
        raise not_found(f"no brief {brief_id!r}", "run `v2c briefs list` to see the saved briefs")


#: video id, transcript key, question key, model, prompt version, chunk budget, chunk
MapKey = Sequence[Any]


def get_map(conn: duckdb.DuckDBPyConnection, key: MapKey) -> list[dict[str, Any]] | None:
    rows = conn.execute(
        "SELECT claims FROM brief_maps WHERE video_id = ? AND transcript_key = ?"
        " AND question_key = ? AND model = ? AND prompt_version = ? AND chunk_budget = ?"
        " AND chunk = ?",
        list(key),
    ).fetchall()
    if not rows:
        return None
    value = json.loads(rows[0][0])
    return value if isinstance(value, list) else None


def put_map(conn: duckdb.DuckDBPyConnection, key: MapKey, claims: list[dict[str, Any]]) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO brief_maps (video_id, transcript_key, question_key, model,"
        " prompt_version, chunk_budget, chunk, claims, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, current_localtimestamp())",
        [*key, json.dumps(claims, ensure_ascii=False)],
    )
