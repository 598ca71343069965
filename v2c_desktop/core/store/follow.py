"""The SQL of followed collections: their sources, schedule, last check and pending inputs.

Times are stored as UTC without a zone (DuckDB TIMESTAMP) and handed out as ISO strings
ending in `Z`. A collection that follows nothing has no row.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import duckdb

from ..domain.follow import FollowState, PendingInput

_ISO = "%Y-%m-%dT%H:%M:%SZ"


def _iso(value: object) -> str:
    return value.strftime(_ISO) if isinstance(value, datetime) else ""


def _naive_utc(when: datetime) -> datetime:
    return when.astimezone(UTC).replace(tzinfo=None, microsecond=0)


def _ensure_row(conn: duckdb.DuckDBPyConnection, collection_id: str) -> None:
    conn.execute(
        "INSERT INTO collection_follow (collection_id) VALUES (?) ON CONFLICT DO NOTHING",
        [collection_id],
    )


def follow(conn: duckdb.DuckDBPyConnection, collection_id: str, sources: list[str]) -> list[str]:
    """Add `sources` to what the collection follows (in order, once each); the new ones."""
    known = state(conn, collection_id).sources
    new = [s for s in dict.fromkeys(sources) if s not in known]
    if new:
        _ensure_row(conn, collection_id)
        conn.execute(
            "UPDATE collection_follow SET sources = list_concat(sources, ?::VARCHAR[])"
            " WHERE collection_id = ?",
            [new, collection_id],
        )
    return new


def unfollow(conn: duckdb.DuckDBPyConnection, collection_id: str, sources: list[str]) -> None:
    kept = [s for s in state(conn, collection_id).sources if s not in set(sources)]
    conn.execute(
        "UPDATE collection_follow SET sources = ?::VARCHAR[] WHERE collection_id = ?",
        [kept, collection_id],
    )


def _reschedule(conn: duckdb.DuckDBPyConnection, collection_id: str, now: datetime) -> None:
    """The next check: `every_hours` after the last check (after `now` if there was none);
    none without a schedule. The one place this rule lives."""
    every, last = conn.execute(
        "SELECT every_hours, last_check FROM collection_follow WHERE collection_id = ?",
        [collection_id],
    ).fetchall()[0]
    base = last if isinstance(last, datetime) else _naive_utc(now)
    next_check = None if every is None else base + timedelta(hours=float(every))
    conn.execute(
        "UPDATE collection_follow SET next_check = ? WHERE collection_id = ?",
        [next_check, collection_id],
    )


def set_schedule(
    conn: duckdb.DuckDBPyConnection,
    collection_id: str,
    every_hours: float | None,
    now: datetime,
) -> None:
    """Check every `every_hours` from the last check (or from now, if never checked)."""
    _ensure_row(conn, collection_id)
    conn.execute(
        "UPDATE collection_follow SET every_hours = ? WHERE collection_id = ?",
        [every_hours, collection_id],
    )
    _reschedule(conn, collection_id, now)


def record_check(
    conn: duckdb.DuckDBPyConnection,
    collection_id: str,
    checked_at: datetime,
    new: int,
    pending: list[tuple[str, str]],
) -> None:
    """The check that just ended: when, how many came in, and what is still pending
    (`(input, reason)`, replacing the last check's list), and the next check's time."""
    _ensure_row(conn, collection_id)
    at = _naive_utc(checked_at)
    conn.execute(
        "UPDATE collection_follow SET last_check = ?, last_new = ? WHERE collection_id = ?",
        [at, new, collection_id],
    )
    _reschedule(conn, collection_id, checked_at)
    conn.execute("DELETE FROM collection_pending WHERE collection_id = ?", [collection_id])
    for item, reason in dict(pending).items():
        conn.execute(
            "INSERT INTO collection_pending VALUES (?, ?, ?, ?)", [collection_id, item, reason, at]
        )


def state(conn: duckdb.DuckDBPyConnection, collection_id: str) -> FollowState:
    rows = conn.execute(
        "SELECT sources, every_hours, last_check, next_check, last_new"
        " FROM collection_follow WHERE collection_id = ?",
        [collection_id],
    ).fetchall()
    if not rows:
        return FollowState(collection_id)
    sources, every, last, nxt, new = rows[0]
    pending = [
        PendingInput(str(item), str(reason), _iso(seen))
        for item, reason, seen in conn.execute(
            "SELECT input, reason, seen_at FROM collection_pending"
            " WHERE collection_id = ? ORDER BY input",
            [collection_id],
        ).fetchall()
    ]
    return FollowState(
        collection_id,
        [str(s) for s in sources or []],
        None if every is None else float(every),
        _iso(last),
        _iso(nxt),
        int(new or 0),
        pending,
    )


def due(conn: duckdb.DuckDBPyConnection, now: datetime) -> list[str]:
    """Collections on a schedule whose next check has come, the longest overdue first."""
    rows = conn.execute(
        "SELECT collection_id FROM collection_follow"
        " WHERE every_hours IS NOT NULL AND len(sources) > 0 AND next_check <= ?"
        " ORDER BY next_check",
        [_naive_utc(now)],
    ).fetchall()
    return [str(r[0]) for r in rows]


def forget(conn: duckdb.DuckDBPyConnection, collection_id: str) -> None:
    """A deleted collection follows nothing any more."""
    conn.execute("DELETE FROM collection_follow WHERE collection_id = ?", [collection_id])
    conn.execute("DELETE FROM collection_pending WHERE collection_id = ?", [collection_id])
