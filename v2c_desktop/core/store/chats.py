"""The chat tables: saved conversations and their messages with citations.

Citations are stored as JSON next to the message text, exactly as they were shown, so a
reopened chat shows the same links and quotes even if a video is later re-imported.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import duckdb

from ..domain.chats import ChatMessageRecord, ChatRecord
from ..errors import bad_request, not_found

_TS = "strftime({}, '%Y-%m-%dT%H:%M:%S')"


def create(conn: duckdb.DuckDBPyConnection, title: str, scope: dict[str, Any]) -> str:
    chat_id = f"chat-{secrets.token_hex(6)}"
    conn.execute(
        "INSERT INTO chats VALUES (?, ?, ?, current_localtimestamp(), current_localtimestamp())",
        [chat_id, title.strip()[:200] or "Untitled chat", json.dumps(scope)],
    )
    return chat_id


def append(conn: duckdb.DuckDBPyConnection, chat_id: str, message: ChatMessageRecord) -> int:
    if not conn.execute("SELECT count(*) FROM chats WHERE id = ?", [chat_id]).fetchall()[0][0]:
        raise not_found(f"no chat {chat_id!r}", "run `v2c chats list` to see saved chats")
    idx = int(
        conn.execute(
            "SELECT coalesce(max(idx) + 1, 0) FROM chat_messages WHERE chat_id = ?", [chat_id]
        ).fetchall()[0][0]
    )
    conn.execute(
        "INSERT INTO chat_messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, current_localtimestamp())",
        [
            chat_id,
            idx,
            message.role,
            message.text,
            json.dumps(message.citations),
            json.dumps(message.unverified),
            message.model,
            message.extractive,
        ],
    )
    conn.execute("UPDATE chats SET updated_at = current_localtimestamp() WHERE id = ?", [chat_id])
    return idx


def _chat_row(row: tuple[Any, ...]) -> ChatRecord:
    return ChatRecord(str(row[0]), str(row[1]), json.loads(row[2]), str(row[3]), str(row[4]))


_SELECT = (
    f"SELECT id, title, scope, {_TS.format('created_at')}, {_TS.format('updated_at')} FROM chats"
)


def list_all(conn: duckdb.DuckDBPyConnection) -> list[ChatRecord]:
    return [_chat_row(r) for r in conn.execute(f"{_SELECT} ORDER BY updated_at DESC").fetchall()]


def get(conn: duckdb.DuckDBPyConnection, chat_id: str) -> ChatRecord:
    rows = conn.execute(f"{_SELECT} WHERE id = ?", [chat_id]).fetchall()
    if not rows:
        raise not_found(f"no chat {chat_id!r}", "run `v2c chats list` to see saved chats")
    chat = _chat_row(rows[0])
    for r in conn.execute(
        "SELECT idx, role, text, citations, unverified, model, extractive,"
        f" {_TS.format('created_at')} FROM chat_messages WHERE chat_id = ? ORDER BY idx",
        [chat_id],
    ).fetchall():
        chat.messages.append(
            ChatMessageRecord(
                int(r[0]),
                str(r[1]),
                str(r[2]),
                json.loads(r[3]),
                json.loads(r[4]),
                r[5],
                bool(r[6]),
                str(r[7]),
            )
        )
    return chat


def rename(conn: duckdb.DuckDBPyConnection, chat_id: str, title: str) -> None:
    get(conn, chat_id)
    if not title.strip():
        raise bad_request("a chat needs a title", "give a short title")
    conn.execute("UPDATE chats SET title = ? WHERE id = ?", [title.strip()[:200], chat_id])


def delete(conn: duckdb.DuckDBPyConnection, chat_id: str) -> None:
    get(conn, chat_id)
    conn.execute("DELETE FROM chat_messages WHERE chat_id = ?", [chat_id])
    conn.execute("DELETE FROM chats WHERE id = ?", [chat_id])
