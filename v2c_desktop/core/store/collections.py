"""The collection tables: named groups of videos and the inputs they were filled from.

A collection's id is a slug of its first name (`Neural nets` -> `neural-nets`) so people
and agents can type it; renaming keeps the id so links and chats keep working.
"""

from __future__ import annotations

import re
import unicodedata

import duckdb

from ..domain.videos import Collection, CollectionItem
from ..errors import V2CError, bad_request, not_found
from . import follow as follow_table


def slugify(name: str) -> str:
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    return slug[:60] or "collection"


def _clean_name(name: str) -> str:
    name = " ".join(name.split())
    if not name:
        raise bad_request("a collection needs a name", 'give a name such as "Neural networks"')
    if len(name) > 200:
        raise bad_request("collection names are at most 200 characters", "use a shorter name")
    return name


def _row_to_collection(conn: duckdb.DuckDBPyConnection, row: tuple[object, ...]) -> Collection:
    cid = str(row[0])
    members = [
        str(r[0])
        for r in conn.execute(
            "SELECT video_id FROM collection_videos WHERE collection_id = ? ORDER BY position",
            [cid],
        ).fetchall()
    ]
    sources = row[3] if isinstance(row[3], list) else []
    return Collection(
        id=cid,
        name=str(row[1]),
        description=str(row[2]),
        sources=[str(s) for s in sources],
        video_ids=members,
        created_at=str(row[4]),
    )


_SELECT = (
    "SELECT id, name, description, sources, strftime(created_at, '%Y-%m-%dT%H:%M:%S')"
    " FROM collections"
)


def list_all(conn: duckdb.DuckDBPyConnection) -> list[Collection]:
    rows = conn.execute(f"{_SELECT} ORDER BY lower(name)").fetchall()
    return [_row_to_collection(conn, row) for row in rows]


def find(conn: duckdb.DuckDBPyConnection, ref: str) -> Collection | None:
    for clause in ("id = ?", "lower(name) = lower(?)"):
        rows = conn.execute(f"{_SELECT} WHERE {clause}", [ref.strip()]).fetchall()
        if rows:
            return _row_to_collection(conn, rows[0])
    return None


def get(conn: duckdb.DuckDBPyConnection, ref: str) -> Collection:
    found = find(conn, ref)
    if found is None:
        raise not_found(
            f"no collection {ref!r}", "run `v2c collections list` to see the collections"
        )
    return found


def create(conn: duckdb.DuckDBPyConnection, name: str, description: str = "") -> Collection:
    name = _clean_name(name)
    if find(conn, name) is not None:
        raise V2CError(
            "bad-request",
            f"a collection named {name!r} already exists",
            "pick another name, or add videos to the existing one",
        )
    base = slugify(name)
    cid, n = base, 2
    while conn.execute("SELECT count(*) FROM collections WHERE id = ?", [cid]).fetchall()[0][0]:
        cid, n = f"{base}-{n}", n + 1
    conn.execute(
        "INSERT INTO collections VALUES (?, ?, ?, []::VARCHAR[], current_localtimestamp())",
        [cid, name, description],
    )
    return get(conn, cid)


def ensure(conn: duckdb.DuckDBPyConnection, name: str) -> Collection:
    return find(conn, name) or create(conn, name)


def add_videos(
    conn: duckdb.DuckDBPyConnection, collection_id: str, video_ids: list[str], sources: list[str]
) -> list[str]:
    collection = get(conn, collection_id)
    present = set(collection.video_ids)
    missing = [
        v
        for v in video_ids
        if not conn.execute("SELECT count(*) FROM videos WHERE id = ?", [v]).fetchall()[0][0]
    ]
    if missing:
        raise not_found(f"no video {missing[0]!r} in the library", "import it first with `v2c add`")
    added: list[str] = []
    position = len(collection.video_ids)
    for vid in dict.fromkeys(video_ids):
        if vid in present:
            continue
        conn.execute(
            "INSERT INTO collection_videos VALUES (?, ?, ?, current_localtimestamp())",
            [collection.id, vid, position],
        )
        position += 1
        added.append(vid)
    new_sources = [s for s in dict.fromkeys(sources) if s not in collection.sources]
    if new_sources:
        conn.execute(
            "UPDATE collections SET sources = list_concat(sources, ?::VARCHAR[]) WHERE id = ?",
            [new_sources, collection.id],
        )
    return added


def latest(conn: duckdb.DuckDBPyConnection, collection_id: str, limit: int) -> list[CollectionItem]:
    """The `limit` videos added to the collection last, newest first (one transaction's
    additions share a time: the later position is the newer)."""
    collection = get(conn, collection_id)
    rows = conn.execute(
        "SELECT v.id, v.title, v.channel, v.url,"
        ' coalesce(v.duration, (SELECT max("end") FROM segments s WHERE s.video_id = v.id), 0),'
        " strftime(cv.added_at, '%Y-%m-%dT%H:%M:%S'), strftime(v.published, '%Y-%m-%d')"
        " FROM collection_videos cv JOIN videos v ON v.id = cv.video_id"
        " WHERE cv.collection_id = ? ORDER BY cv.added_at DESC, cv.position DESC LIMIT ?",
        [collection.id, max(0, limit)],
    ).fetchall()
    return [
        CollectionItem(
            video_id=str(r[0]),
            title=str(r[1] or ""),
            channel=str(r[2] or ""),
            url=str(r[3] or ""),
            duration=float(r[4] or 0),
            added_at=str(r[5]),
            published=r[6],
        )
        for r in rows
    ]


def remove_videos(
    conn: duckdb.DuckDBPyConnection, collection_id: str, video_ids: list[str]
) -> None:
    collection = get(conn, collection_id)
    for vid in video_ids:
        conn.execute(
            "DELETE FROM collection_videos WHERE collection_id = ? AND video_id = ?",
            [collection.id, vid],
        )


def rename(conn: duckdb.DuckDBPyConnection, collection_id: str, name: str) -> Collection:
    collection = get(conn, collection_id)
    name = _clean_name(name)
    other = find(conn, name)
    if other is not None and other.id != collection.id:
        raise bad_request(f"a collection named {name!r} already exists", "pick another name")
    conn.execute("UPDATE collections SET name = ? WHERE id = ?", [name, collection.id])
    return get(conn, collection.id)


def delete(conn: duckdb.DuckDBPyConnection, collection_id: str) -> None:
    collection = get(conn, collection_id)
    conn.execute("DELETE FROM collection_videos WHERE collection_id = ?", [collection.id])
    conn.execute("DELETE FROM collections WHERE id = ?", [collection.id])
    follow_table.forget(conn, collection.id)
