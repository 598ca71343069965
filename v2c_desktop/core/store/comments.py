"""The comment tables: a video's comments as last read from its site.

`comment_fetches` has a row per video whose comments were read (how many were asked for,
whether that was all of them, the title and page to show without the network);
`video_comments` holds the comments, in the order they are shown. They are keyed by the
library's video id (`youtube:<id>`) but need no `videos` row: a video without captions is
not in the library, yet its comments are kept all the same. A new read replaces both in the
caller's transaction; removing a video removes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from ..domain.comments import Comment


@dataclass(frozen=True)
class StoredComments:
    """What the last read of a video's comments brought, in order.

    `asked`: how many were asked for; `complete`: the site gave fewer, so these are all.
    """

    video_id: str
    title: str
    url: str
    asked: int
    complete: bool
    disabled: bool
    fetched_at: str
    comments: list[Comment]


def delete(conn: duckdb.DuckDBPyConnection, video_id: str) -> None:
    conn.execute("DELETE FROM video_comments WHERE video_id = ?", [video_id])
    conn.execute("DELETE FROM comment_fetches WHERE video_id = ?", [video_id])


def replace(
    conn: duckdb.DuckDBPyConnection,
    video_id: str,
    title: str,
    url: str,
    asked: int,
    complete: bool,
    disabled: bool,
    comments: Sequence[Comment],
) -> None:
    """Keep `comments` as the video's (read now, `asked` of them asked for)."""
    delete(conn, video_id)
    conn.execute(
        "INSERT INTO comment_fetches VALUES (?, ?, ?, ?, ?, ?, current_localtimestamp())",
        [video_id, title, url, asked, complete, disabled],
    )
    if not comments:
        return
    conn.execute(
        "INSERT INTO video_comments SELECT ?, unnest(?::INTEGER[]), unnest(?::VARCHAR[]),"
        " unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]),"
        " unnest(?::VARCHAR[]), unnest(?::DATE[]), unnest(?::BIGINT[]), unnest(?::BOOLEAN[]),"
        " unnest(?::BOOLEAN[]), unnest(?::BOOLEAN[]), unnest(?::BOOLEAN[])",
        [
            video_id,
            list(range(len(comments))),
            [c.id for c in comments],
            [c.parent_id for c in comments],
            [c.author for c in comments],
            [c.author_id for c in comments],
            [c.text for c in comments],
            [c.published for c in comments],
            [c.likes for c in comments],
            [c.by_uploader for c in comments],
            [c.pinned for c in comments],
            [c.favorited for c in comments],
            [c.verified for c in comments],
        ],
    )


def load(conn: duckdb.DuckDBPyConnection, video_id: str) -> StoredComments | None:
    """The video's last read comments, or None when they were never read."""
    fetched = conn.execute(
        "SELECT title, url, asked, complete, disabled,"
        " strftime(fetched_at, '%Y-%m-%dT%H:%M:%S') FROM comment_fetches WHERE video_id = ?",
        [video_id],
    ).fetchall()
    if not fetched:
        return None
    rows = conn.execute(
        "SELECT comment_id, parent_id, author, author_id, text,"
        " strftime(published, '%Y-%m-%d'), likes, by_uploader, pinned, favorited, verified"
        " FROM video_comments WHERE video_id = ? ORDER BY idx",
        [video_id],
    ).fetchall()
    title, url, asked, complete, disabled, fetched_at = fetched[0]
    return StoredComments(
        video_id=video_id,
        title=str(title),
        url=str(url),
        asked=int(asked),
        complete=bool(complete),
        disabled=bool(disabled),
        fetched_at=str(fetched_at),
        comments=[
            Comment(
                id=str(r[0]),
                parent_id=None if r[1] is None else str(r[1]),
                author=str(r[2]),
                author_id=str(r[3]),
                text=str(r[4]),
                published=None if r[5] is None else str(r[5]),
                likes=None if r[6] is None else int(r[6]),
                by_uploader=bool(r[7]),
                pinned=bool(r[8]),
                favorited=bool(r[9]),
                verified=bool(r[10]),
            )
            for r in rows
        ],
    )
