"""The video tables: videos, transcripts, segments and chapters of one library.

Functions take a connection inside the caller's transaction, so `LibraryStore` decides
what is atomic. Segments are written column-wise through `unnest` of bound lists: one
statement per video, fast, and never any text spliced into SQL.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from ..domain.videos import Chapter, Segment, Transcript, Video, VideoRecord, VideoSummary
from ..errors import V2CError, not_found
from ..file_kinds import is_media
from ..ids import youtube_id_from_url


def content_hash(transcript: Transcript) -> str:
    """A fingerprint of what was said and when, so indexes can tell when to rebuild."""
    digest = hashlib.sha256()
    digest.update(json.dumps([transcript.origin, transcript.language]).encode())
    for seg in transcript.segments:
        digest.update(f"{seg.start:.3f}\t{seg.end:.3f}\t{seg.text}\n".encode())
    return digest.hexdigest()


def exists(conn: duckdb.DuckDBPyConnection, video_id: str) -> bool:
    rows = conn.execute("SELECT count(*) FROM videos WHERE id = ?", [video_id]).fetchall()
    return bool(rows[0][0])


def saved_as(
    conn: duckdb.DuckDBPyConnection, url: str, video_id: str = ""
) -> tuple[str, str] | None:
    """The saved video with this id, or imported from exactly this page address: (id, title)."""
    rows = conn.execute(
        "SELECT id, title FROM videos WHERE id = ? OR (url = ? AND url <> '') LIMIT 1",
        [video_id, url],
    ).fetchall()
    return (str(rows[0][0]), str(rows[0][1])) if rows else None


def transcript_hash(conn: duckdb.DuckDBPyConnection, video_id: str) -> str | None:
    rows = conn.execute(
        "SELECT content_hash FROM transcripts WHERE video_id = ?", [video_id]
    ).fetchall()
    return str(rows[0][0]) if rows else None


def _delete_rows(conn: duckdb.DuckDBPyConnection, video_id: str) -> None:
    for table, column in (
        ("segments", "video_id"),
        ("chapters", "video_id"),
        ("transcripts", "video_id"),
        ("videos", "id"),
    ):
        conn.execute(f"DELETE FROM {table} WHERE {column} = ?", [video_id])


def replace_video(conn: duckdb.DuckDBPyConnection, record: VideoRecord) -> bool:
    """Write `record`, replacing any earlier version; True when the video was new."""
    video, transcript = record.video, record.transcript
    previous = conn.execute(
        "SELECT added_at, user_title, source_path FROM videos WHERE id = ?", [video.id]
    ).fetchall()
    _delete_rows(conn, video.id)
    added_at = "current_localtimestamp()" if not previous else "?"
    user_title = previous[0][1] if previous else None
    source_path = video.source_path
    if previous and is_media(previous[0][2] or "") and not is_media(source_path):
        source_path = previous[0][2]  # media found or located later outlives a re-import
    params: list[object] = [
        video.id,
        video.platform,
        video.native_id,
        user_title or video.title,
        video.channel,
        video.channel_id,
        video.url,
        video.duration,
        video.published,
        video.description,
        video.thumbnail_url,
        source_path,
    ]
    params.append(user_title)
    if previous:
        params.append(previous[0][0])
    conn.execute(
        "INSERT INTO videos (id, platform, native_id, title, channel, channel_id, url, duration,"
        " published, description, thumbnail_url, source_path, user_title, added_at, updated_at)"
        f" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, {added_at}, current_localtimestamp())",
        params,
    )
    conn.execute(
        "INSERT INTO transcripts (video_id, origin, language, producer, track_name,"
        " translated_from, content_hash, segment_count, track, track_count)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            video.id,
            transcript.origin,
            transcript.language,
            transcript.producer,
            transcript.track_name,
            transcript.translated_from,
            content_hash(transcript),
            len(transcript.segments),
            transcript.track,
            transcript.track_count,
        ],
    )
    segs = transcript.segments
    if segs:
        conn.execute(
            "INSERT INTO segments SELECT ?, unnest(?::INTEGER[]), unnest(?::DOUBLE[]),"
            " unnest(?::DOUBLE[]), unnest(?::VARCHAR[])",
            [
                video.id,
                list(range(len(segs))),
                [s.start for s in segs],
                [s.end for s in segs],
                [s.text for s in segs],
            ],
        )
    chapters = record.chapters
    if chapters:
        conn.execute(
            "INSERT INTO chapters SELECT ?, unnest(?::INTEGER[]), unnest(?::VARCHAR[]),"
            " unnest(?::DOUBLE[]), unnest(?::DOUBLE[])",
            [
                video.id,
                list(range(len(chapters))),
                [c.title for c in chapters],
                [c.start for c in chapters],
                [c.end for c in chapters],
            ],
        )
    return not previous


#: The columns of `videos v` that make a `Video`, in `video_from_row`'s order.
VIDEO_SELECT = (
    "v.id, v.platform, v.native_id, v.title, v.channel, v.channel_id, v.url, v.duration,"
    " strftime(v.published, '%Y-%m-%d'), v.description, v.thumbnail_url, v.source_path"
)
VIDEO_WIDTH = 12


def video_from_row(r: Sequence[Any]) -> Video:
    """The `Video` of a row that starts with `VIDEO_SELECT`'s columns: the one mapping."""
    return Video(
        id=str(r[0]),
        platform=r[1],
        native_id=r[2],
        title=r[3],
        channel=r[4],
        channel_id=r[5],
        url=r[6],
        duration=r[7],
        published=r[8],
        description=r[9],
        thumbnail_url=r[10],
        source_path=r[11],
    )


def load_video(conn: duckdb.DuckDBPyConnection, video_id: str) -> VideoRecord:
    rows = conn.execute(
        f"SELECT {VIDEO_SELECT}, strftime(v.added_at, '%Y-%m-%dT%H:%M:%S'),"
        " strftime(v.updated_at, '%Y-%m-%dT%H:%M:%S'),"
        " t.origin, t.language, t.producer, t.track_name, t.translated_from,"
        " t.track, t.track_count"
        " FROM videos v JOIN transcripts t ON t.video_id = v.id WHERE v.id = ?",
        [video_id],
    ).fetchall()
    if not rows:
        raise not_found(f"no video {video_id!r} in the library", "run `v2c list` to see the ids")
    r = rows[0]
    video = video_from_row(r)
    segments = [
        Segment(start, end, text)
        for start, end, text in conn.execute(
            'SELECT start, "end", text FROM segments WHERE video_id = ? ORDER BY idx', [video_id]
        ).fetchall()
    ]
    chapters = [
        Chapter(title, start, end)
        for title, start, end in conn.execute(
            'SELECT title, start, "end" FROM chapters WHERE video_id = ? ORDER BY idx', [video_id]
        ).fetchall()
    ]
    transcript = Transcript(
        origin=r[14],
        language=r[15],
        segments=segments,
        producer=r[16],
        track_name=r[17],
        translated_from=r[18],
        track=r[19] or "",
        track_count=r[20],
    )
    return VideoRecord(video, transcript, chapters, added_at=r[12], updated_at=r[13])


def list_summaries(
    conn: duckdb.DuckDBPyConnection, collection_id: str | None = None
) -> list[VideoSummary]:
    where = ""
    params: list[object] = []
    if collection_id is not None:
        where = "WHERE v.id IN (SELECT video_id FROM collection_videos WHERE collection_id = ?)"
        params.append(collection_id)
    rows = conn.execute(
        "SELECT v.id, v.title, v.channel, v.url,"
        ' coalesce(v.duration, (SELECT max("end") FROM segments s WHERE s.video_id = v.id), 0),'
        " t.origin, t.language, v.source_path, strftime(v.published, '%Y-%m-%d'),"
        " strftime(v.added_at, '%Y-%m-%dT%H:%M:%S'), t.segment_count,"
        " (SELECT count(*) FROM chapters c WHERE c.video_id = v.id)"
        f" FROM videos v JOIN transcripts t ON t.video_id = v.id {where}"
        " ORDER BY v.added_at, v.id",
        params,
    ).fetchall()
    return [
        VideoSummary(
            id=r[0],
            title=r[1],
            channel=r[2],
            url=r[3],
            duration=float(r[4]),
            origin=r[5],
            language=r[6],
            source_path=r[7],
            published=r[8],
            added_at=r[9],
            segment_count=int(r[10]),
            chapter_count=int(r[11]),
        )
        for r in rows
    ]


def resolve(conn: duckdb.DuckDBPyConnection, ref: str) -> str:
    """Find a video by id, native id, URL, file path or exact title; never guesses."""
    ref = ref.strip()
    if not ref:
        raise V2CError("bad-request", "no video given", "pass a video id from `v2c list`")
    candidates: list[tuple[str, list[object]]] = [("id = ?", [ref])]
    yt = youtube_id_from_url(ref)
    if yt:
        candidates.append(("id = ?", [f"youtube:{yt}"]))
    candidates.append(("native_id = ?", [ref]))
    candidates.append(("url = ?", [ref]))
    path = Path(ref).expanduser()
    if path.exists():
        candidates.append(("source_path = ?", [str(path.resolve())]))
    candidates.append(("lower(title) = lower(?)", [ref]))
    for clause, params in candidates:
        ids = [
            r[0] for r in conn.execute(f"SELECT id FROM videos WHERE {clause}", params).fetchall()
        ]
        if len(ids) == 1:
            return str(ids[0])
        if len(ids) > 1:
            raise V2CError(
                "bad-request",
                f"{ref!r} matches {len(ids)} videos: {', '.join(sorted(ids)[:5])}",
                "pass the full video id",
            )
    raise not_found(f"no video {ref!r} in the library", "run `v2c list` to see the ids")


def rename(conn: duckdb.DuckDBPyConnection, video_id: str, title: str) -> None:
    """Give a video the user's own title; it is kept when the video is imported again."""
    clean = " ".join(title.split())[:300]
    if not clean:
        raise V2CError("bad-request", "a title cannot be empty", "type the title to show")
    found = conn.execute(
        "UPDATE videos SET title = ?, user_title = ?, updated_at = current_localtimestamp()"
        " WHERE id = ? RETURNING id",
        [clean, clean, video_id],
    ).fetchall()
    if not found:
        raise not_found(f"no video {video_id!r} in the library", "run `v2c list` to see the ids")


def set_media(conn: duckdb.DuckDBPyConnection, video_id: str, path: str) -> None:
    """Play a video from this local media file from now on (one found beside its subtitle
    file, or one the user chose); an import of the subtitle file again keeps it."""
    found = conn.execute(
        "UPDATE videos SET source_path = ?, updated_at = current_localtimestamp()"
        " WHERE id = ? RETURNING id",
        [path, video_id],
    ).fetchall()
    if not found:
        raise not_found(f"no video {video_id!r} in the library", "run `v2c list` to see the ids")


def delete(conn: duckdb.DuckDBPyConnection, video_id: str) -> None:
    if not exists(conn, video_id):
        raise not_found(f"no video {video_id!r} in the library", "run `v2c list` to see the ids")
    conn.execute("DELETE FROM collection_videos WHERE video_id = ?", [video_id])
    _delete_rows(conn, video_id)
