"""The library file: its owner lock, its one DuckDB connection, and the store interface.

All access goes through `LibraryStore`. Calls are serialised by one lock: DuckDB's
connection is not meant for concurrent use and an unread result would block it anyway. The
store owns the one worker thread that async code uses for it (`run`): every write of the
app (imports, the search index, chats, collections) runs there, in the order it was asked
for, so the event loop never waits on DuckDB and no write races another. Searches read
through their own cursors (`reader`, `search_reads.py`) on other threads.

That every write runs on the worker is enforced, not hoped for (`_write`): a write called
on a thread with a running event loop, or on any other thread but the main one (a stray
`asyncio.to_thread`, a pool), raises instead of running; one called from synchronous code
on the main thread with no loop running there (a script, a benchmark, a test) is handed to
the worker and waited for. `_transaction` refuses to open anywhere but on the worker.

Every committed write is published on `changes` (what changed, not the rows), which is how
the faces refresh whoever made the change.

A library file is data, not code: someone may send the user one. DuckDB opens it with no
access to other files, URLs or extensions (`_SAFE_CONFIG`, locked so no statement can turn
it back on), and a file holding views or macros (v2c makes neither, and a view over
`collections` could read any file the user can) is refused before anything reads it. The
library, its WAL and its lock hold the user's chats: they are created 0600.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import stat
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from datetime import datetime
from functools import partial, wraps
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

import duckdb
import numpy as np
import numpy.typing as npt

from ..domain.changes import Action, Change, Subject
from ..domain.chats import ChatMessageRecord, ChatRecord
from ..domain.comments import Comment
from ..domain.follow import FollowState
from ..domain.skips import SkipSegment
from ..domain.videos import Collection, CollectionItem, VideoRecord, VideoSummary
from ..errors import V2CError
from ..library_lock import LibraryLock, library_in_use
from . import briefs as brief_table
from . import chats as chat_table
from . import collections as collection_table
from . import comments as comment_table
from . import follow as follow_table
from . import moments as moments_table
from . import notion as notion_table
from . import search_index
from . import skip_segments as skip_table
from . import videos as video_table
from .change_feed import ChangeFeed
from .migrations import MIGRATIONS, migrate

T = TypeVar("T")
P = ParamSpec("P")
log = logging.getLogger(__name__)

#: How every library is opened: nothing but the file itself (see the module docstring).
_SAFE_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "enable_external_access": False,
    "autoload_known_extensions": False,
    "autoinstall_known_extensions": False,
    "allow_community_extensions": False,
    "lock_configuration": True,
}


@contextmanager
def _private_files() -> Iterator[None]:
    """Files created meanwhile (the library, its WAL, DuckDB's temp files) are 0600.

    DuckDB creates them with the process umask and deletes and re-creates the WAL at every
    checkpoint, so the umask is tightened around each opening and write. It is process-wide:
    another thread creating a file in that moment gets a stricter mode, never a looser one.
    """
    if not hasattr(os, "umask"):  # pragma: no cover - every supported platform has one
        yield
        return
    old = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(old)


def _tighten(path: Path) -> None:
    """Make an existing library file of ours 0600 (libraries made before were 0644)."""
    try:
        info = os.lstat(path)
    except OSError:
        return
    getuid = getattr(os, "getuid", None)
    mine = getuid is None or info.st_uid == getuid()
    if stat.S_ISREG(info.st_mode) and mine and stat.S_IMODE(info.st_mode) & 0o077:
        with suppress(OSError):
            os.chmod(path, 0o600)


def _warn_if_shared_folder(folder: Path) -> None:
    with suppress(OSError):
        mode = os.stat(folder).st_mode
        if os.name != "nt" and mode & (stat.S_IWGRP | stat.S_IWOTH):
            log.warning(
                "the library's folder %s can be written by other users (mode %s): they could "
                "replace or plant files beside the library; keep it in a folder only you "
                "can write to",
                folder,
                oct(stat.S_IMODE(mode)),
            )


def _storage_error(exc: Exception, library: Path) -> V2CError:
    text = str(exc)
    if "No space left" in text or "disk full" in text.lower():
        return V2CError(
            "internal",
            f"the disk holding {library} is full; nothing was changed",
            "free some disk space and run the command again",
        )
    return V2CError(
        "internal",
        f"the library {library} could not be written: {text.splitlines()[0]}",
        "check that the folder is writable; what was saved before is unchanged",
    )


def _stray_writer(name: str) -> str | None:
    """Why this thread may not hand a write to the worker and wait (None: it may)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:  # waiting here would stall the loop, and the write would jump the queue
        return f"{name} was called on an event loop's thread: await store.run(store.{name}, ...)"
    if threading.current_thread() is not threading.main_thread():
        return (
            f"{name} was called on the thread {threading.current_thread().name!r}: a write "
            f"runs on the store's worker, in order with the others (await store.run(...))"
        )
    return None


def _write(
    method: Callable[Concatenate[LibraryStore, P], T],
) -> Callable[Concatenate[LibraryStore, P], T]:
    """A write: it runs on the store's one worker thread (see the module docstring)."""

    @wraps(method)
    def on_the_worker(store: LibraryStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        if store.on_worker():
            return method(store, *args, **kwargs)
        why = _stray_writer(method.__name__)
        if why is not None:
            raise RuntimeError(why)
        return store._worker.submit(method, store, *args, **kwargs).result()

    return on_the_worker


class LibraryStore:
    """Every read and write of one library file, owned by this process."""

    def __init__(self, path: Path, conn: duckdb.DuckDBPyConnection, lock: LibraryLock) -> None:
        self.path = path
        self._conn = conn
        self._lock = lock
        self._mutex = threading.RLock()
        self._readers: weakref.WeakSet[duckdb.DuckDBPyConnection] = weakref.WeakSet()
        self._generation = 0
        self._worker_thread: int | None = None  # its id, set when the worker starts
        self._worker = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="v2c-store", initializer=self._mark_worker
        )
        self.changes = ChangeFeed()

    def _mark_worker(self) -> None:
        self._worker_thread = threading.get_ident()

    def on_worker(self) -> bool:
        """Whether this code runs on the store's worker thread (where every write runs)."""
        return threading.get_ident() == self._worker_thread

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a blocking store call on the store's one worker thread, in order with the
        others (every write of async code goes through here)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._worker, partial(fn, *args))

    def _changed(self, subject: Subject, action: Action, *ids: str) -> None:
        self.changes.publish(Change(subject, action, tuple(ids)))

    @property
    def generation(self) -> int:
        """Bumped after every committed write: equal numbers mean nothing changed since.

        This process is the only writer (the owner lock), so readers such as the search
        engine can keep what they derived from the tables until the number moves. Read it
        BEFORE reading the tables: a write committing in between then costs one re-read,
        never a stale answer.
        """
        return self._generation

    # -- life cycle -------------------------------------------------------------------------
    async def aclose(self) -> None:
        """Let queued calls finish (without blocking the event loop), then close."""
        await asyncio.get_running_loop().run_in_executor(None, self._worker.shutdown, True)
        self.close()

    def close(self) -> None:
        """Close every reader cursor first: a cursor outliving its connection and then being
        collected on another thread can crash DuckDB's native code."""
        self._worker.shutdown(wait=True)
        with self._mutex:
            try:
                for reader in list(self._readers):
                    with suppress(duckdb.Error):
                        reader.close()
                self._conn.close()
            finally:
                self._lock.release()

    def __enter__(self) -> LibraryStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        if not self.on_worker():  # a write method without `@_write`: a bug, say so loudly
            raise RuntimeError("a store transaction outside the store's worker thread")
        with self._mutex, _private_files():
            self._conn.execute("BEGIN TRANSACTION")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException as exc:
                self._generation += 1  # a failed COMMIT may still have changed something
                with suppress(duckdb.Error):
                    self._conn.execute("ROLLBACK")
                if isinstance(exc, duckdb.IOException):
                    raise _storage_error(exc, self.path) from exc
                raise
            self._generation += 1

    @contextmanager
    def _reading(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._mutex:
            yield self._conn

    # -- videos -----------------------------------------------------------------------------
    @_write
    def save_video(self, record: VideoRecord) -> bool:
        """Insert or replace one video with its transcript and chapters, all or nothing.

        Returns True when the video was new.
        """
        with self._transaction() as conn:
            is_new = video_table.replace_video(conn, record)
            moments_table.drop_stale(conn, record.video.id)
        self._changed("video", "added" if is_new else "updated", record.video.id)
        return is_new

    def get_video(self, video_id: str) -> VideoRecord:
        with self._reading() as conn:
            return video_table.load_video(conn, video_id)

    def has_video(self, video_id: str) -> bool:
        with self._reading() as conn:
            return video_table.exists(conn, video_id)

    def transcript_hash(self, video_id: str) -> str | None:
        with self._reading() as conn:
            return video_table.transcript_hash(conn, video_id)

    def list_videos(self, collection_id: str | None = None) -> list[VideoSummary]:
        with self._reading() as conn:
            return video_table.list_summaries(conn, collection_id)

    def resolve_video(self, ref: str) -> str:
        """The id of the video a user means by an id, a native id, a URL or a file path."""
        with self._reading() as conn:
            return video_table.resolve(conn, ref)

    @_write
    def rename_video(self, video_id: str, title: str) -> None:
        with self._transaction() as conn:
            video_table.rename(conn, video_id, title)
        self._changed("video", "updated", video_id)

    @_write
    def set_media(self, video_id: str, path: str) -> None:
        """Point a video at its local media file (see `videos.set_media`)."""
        with self._transaction() as conn:
            video_table.set_media(conn, video_id, path)
        self._changed("video", "updated", video_id)

    @_write
    def delete_video(self, video_id: str) -> None:
        """Remove a video with its segments, chapters, memberships and search index."""
        with self._transaction() as conn:
            video_table.delete(conn, video_id)
            search_index.delete_video_index(conn, video_id)
            moments_table.drop_stale(conn, video_id)
            skip_table.delete(conn, video_id)
            comment_table.delete(conn, video_id)
        self._changed("video", "removed", video_id)

    # -- collections ------------------------------------------------------------------------
    @_write
    def create_collection(self, name: str, description: str = "") -> Collection:
        with self._transaction() as conn:
            collection = collection_table.create(conn, name, description)
        self._changed("collection", "added", collection.id)
        return collection

    def list_collections(self) -> list[Collection]:
        with self._reading() as conn:
            return collection_table.list_all(conn)

    def get_collection(self, ref: str) -> Collection:
        with self._reading() as conn:
            return collection_table.get(conn, ref)

    def latest_in_collection(self, collection_id: str, limit: int) -> list[CollectionItem]:
        with self._reading() as conn:
            return collection_table.latest(conn, collection_id, limit)

    @_write
    def ensure_collection(self, name: str) -> Collection:
        with self._transaction() as conn:
            collection = collection_table.ensure(conn, name)
        self._changed("collection", "changed", collection.id)
        return collection

    @_write
    def add_to_collection(
        self, collection_id: str, video_ids: list[str], sources: list[str] | None = None
    ) -> list[str]:
        """Add videos (skipping members); returns the ids that were newly added."""
        with self._transaction() as conn:
            added = collection_table.add_videos(conn, collection_id, video_ids, sources or [])
        if added:
            self._changed("collection", "updated", collection_id)
        return added

    @_write
    def remove_from_collection(self, collection_id: str, video_ids: list[str]) -> None:
        with self._transaction() as conn:
            collection_table.remove_videos(conn, collection_id, video_ids)
        self._changed("collection", "updated", collection_id)

    @_write
    def rename_collection(self, collection_id: str, name: str) -> Collection:
        with self._transaction() as conn:
            collection = collection_table.rename(conn, collection_id, name)
        self._changed("collection", "updated", collection_id)
        return collection

    @_write
    def delete_collection(self, collection_id: str) -> None:
        with self._transaction() as conn:
            collection_table.delete(conn, collection_id)
        self._changed("collection", "removed", collection_id)

    # -- followed sources -------------------------------------------------------------------
    def follow_state(self, collection_id: str) -> FollowState:
        with self._reading() as conn:
            return follow_table.state(conn, collection_id)

    @_write
    def follow_sources(self, collection_id: str, sources: list[str]) -> list[str]:
        """Follow these playlists, channels or feeds (the new ones are returned)."""
        with self._transaction() as conn:
            collection_table.get(conn, collection_id)
            new = follow_table.follow(conn, collection_id, sources)
        if new:
            self._changed("collection", "updated", collection_id)
        return new

    @_write
    def unfollow_sources(self, collection_id: str, sources: list[str]) -> None:
        with self._transaction() as conn:
            follow_table.unfollow(conn, collection_id, sources)
        self._changed("collection", "updated", collection_id)

    @_write
    def set_follow_schedule(
        self, collection_id: str, every_hours: float | None, now: datetime
    ) -> None:
        with self._transaction() as conn:
            collection_table.get(conn, collection_id)
            follow_table.set_schedule(conn, collection_id, every_hours, now)
        self._changed("collection", "updated", collection_id)

    @_write
    def record_follow_check(
        self, collection_id: str, checked_at: datetime, new: int, pending: list[tuple[str, str]]
    ) -> None:
        with self._transaction() as conn:
            follow_table.record_check(conn, collection_id, checked_at, new, pending)
        self._changed("collection", "updated", collection_id)

    def collections_due(self, now: datetime) -> list[str]:
        with self._reading() as conn:
            return follow_table.due(conn, now)

    def saved_as(self, url: str, video_id: str = "") -> tuple[str, str] | None:
        """The saved video with this id or imported from this page address: (id, title)."""
        with self._reading() as conn:
            return video_table.saved_as(conn, url, video_id)

    # -- Notion pages -----------------------------------------------------------------------
    def notion_page(self, video_id: str, parent_id: str) -> tuple[str, str, str] | None:
        with self._reading() as conn:
            return notion_table.remembered(conn, video_id, parent_id)

    @_write
    def remember_notion_page(
        self, video_id: str, parent_id: str, page_id: str, url: str, transcript_hash: str
    ) -> None:
        with self._transaction() as conn:
            notion_table.remember(conn, video_id, parent_id, page_id, url, transcript_hash)

    # -- search index -----------------------------------------------------------------------
    @_write
    def write_keyword_index(
        self, video_id: str, transcript_hash: str, chunks: Sequence[search_index.ChunkRow]
    ) -> list[int]:
        """Replace a video's chunks and postings (dropping its vectors); returns chunk ids."""
        with self._transaction() as conn:
            ids = search_index.write_keyword_index(conn, video_id, transcript_hash, chunks)
        with self._transaction() as conn:
            if search_index.postings_need_sorting(conn):
                search_index.sort_postings(conn)
        self._changed("index", "updated", video_id)
        return ids

    @_write
    def write_vectors(
        self,
        video_id: str,
        model: str,
        chunk_ids: Sequence[int],
        matrix: npt.NDArray[np.float32],
        vectors_hash: str,
    ) -> None:
        with self._transaction() as conn:
            search_index.write_vectors(conn, video_id, model, chunk_ids, matrix, vectors_hash)
        self._changed("index", "updated", video_id)

    @_write
    def drop_video_index(self, video_id: str) -> None:
        with self._transaction() as conn:
            search_index.delete_video_index(conn, video_id)
        self._changed("index", "removed", video_id)

    def index_manifest(self, video_id: str) -> tuple[str | None, search_index.Manifest | None]:
        """The video's current transcript hash (None once deleted) and its index manifest."""
        with self._reading() as conn:
            return search_index.manifest_of(conn, video_id)

    def index_manifests(self) -> dict[str, search_index.Manifest]:
        with self._reading() as conn:
            return search_index.manifests(conn)

    def load_vectors(
        self, model: str
    ) -> tuple[npt.NDArray[np.int64], list[str], npt.NDArray[np.float32]]:
        with self._reading() as conn:
            return search_index.load_vectors(conn, model)

    def video_vectors(
        self, video_id: str, model: str
    ) -> tuple[list[int], list[int], npt.NDArray[np.float32]] | None:
        """A video's chunks (first and last segments) and their current `model` vectors."""
        with self._reading() as conn:
            return search_index.video_vectors(conn, video_id, model)

    def reader(self) -> duckdb.DuckDBPyConnection:
        """A separate cursor for read-only work on another thread (search), so reads never
        wait behind an import; DuckDB gives each cursor its own snapshot."""
        with self._mutex:
            cursor = self._conn.cursor()
            self._readers.add(cursor)
            return cursor

    # -- chats ------------------------------------------------------------------------------
    @_write
    def create_chat(self, title: str, scope: dict[str, Any]) -> str:
        with self._transaction() as conn:
            chat_id = chat_table.create(conn, title, scope)
        self._changed("chat", "added", chat_id)
        return chat_id

    @_write
    def append_chat_message(self, chat_id: str, message: ChatMessageRecord) -> int:
        with self._transaction() as conn:
            idx = chat_table.append(conn, chat_id, message)
        self._changed("chat", "updated", chat_id)
        return idx

    def list_chats(self) -> list[ChatRecord]:
        with self._reading() as conn:
            return chat_table.list_all(conn)

    def get_chat(self, chat_id: str) -> ChatRecord:
        with self._reading() as conn:
            return chat_table.get(conn, chat_id)

    @_write
    def rename_chat(self, chat_id: str, title: str) -> None:
        with self._transaction() as conn:
            chat_table.rename(conn, chat_id, title)
        self._changed("chat", "updated", chat_id)

    @_write
    def delete_chat(self, chat_id: str) -> None:
        with self._transaction() as conn:
            chat_table.delete(conn, chat_id)
        self._changed("chat", "removed", chat_id)

    # -- briefs -----------------------------------------------------------------------------
    @_write
    def save_brief(
        self,
        brief_id: str,
        title: str,
        question: str,
        template: str,
        scope: dict[str, Any],
        model: str | None,
        status: str,
        result: Any,
    ) -> None:
        with self._transaction() as conn:
            brief_table.save(
                conn, brief_id, title, question, template, scope, model, status, result
            )
        self._changed("brief", "updated", brief_id)

    def list_briefs(self) -> list[tuple[Any, ...]]:
        with self._reading() as conn:
            return brief_table.list_all(conn)

    def get_brief(self, brief_id: str) -> tuple[Any, str, str]:
        with self._reading() as conn:
            return brief_table.get(conn, brief_id)

    @_write
    def rename_brief(self, brief_id: str, title: str) -> None:
        with self._transaction() as conn:
            brief_table.rename(conn, brief_id, title)
        self._changed("brief", "updated", brief_id)

    @_write
    def delete_brief(self, brief_id: str) -> None:
        with self._transaction() as conn:
            brief_table.delete(conn, brief_id)
        self._changed("brief", "removed", brief_id)

    def brief_map(self, key: Sequence[Any]) -> list[dict[str, Any]] | None:
        with self._reading() as conn:
            return brief_table.get_map(conn, key)

    @_write
    def put_brief_map(self, key: Sequence[Any], claims: list[dict[str, Any]]) -> None:
        with self._transaction() as conn:
            brief_table.put_map(conn, key, claims)

    # -- skip segments (SponsorBlock) -------------------------------------------------------
    @_write
    def save_skip_segments(
        self,
        video_id: str,
        youtube_id: str,
        categories: Sequence[str],
        segments: Sequence[SkipSegment],
    ) -> None:
        """Keep a fetch of the video's skip segments, replacing the one before."""
        with self._transaction() as conn:
            skip_table.replace(conn, video_id, youtube_id, categories, segments)
        self._changed("skips", "updated", video_id)

    def skip_segments(self, video_id: str) -> skip_table.StoredSkips | None:
        """The video's last fetch of skip segments (None: never fetched)."""
        with self._reading() as conn:
            return skip_table.load(conn, video_id)

    # -- comments ---------------------------------------------------------------------------
    @_write
    def save_comments(
        self,
        video_id: str,
        title: str,
        url: str,
        asked: int,
        complete: bool,
        disabled: bool,
        comments: Sequence[Comment],
    ) -> None:
        """Keep a read of the video's comments, replacing the one before (the video need
        not be in the library: one without captions still has comments)."""
        with self._transaction() as conn:
            comment_table.replace(conn, video_id, title, url, asked, complete, disabled, comments)
        self._changed("comments", "updated", video_id)

    def comments(self, video_id: str) -> comment_table.StoredComments | None:
        """The video's comments as last read (None: never read)."""
        with self._reading() as conn:
            return comment_table.load(conn, video_id)

    # -- key moments ------------------------------------------------------------------------
    def key_moments(self, key: Sequence[Any]) -> Any | None:
        with self._reading() as conn:
            return moments_table.get(conn, key)

    @_write
    def put_key_moments(self, key: Sequence[Any], result: Any) -> None:
        with self._transaction() as conn:
            moments_table.put(conn, key, result)

    # -- facts ------------------------------------------------------------------------------
    def schema_migrations(self) -> list[str]:
        with self._reading() as conn:
            rows = conn.execute("SELECT name FROM schema_migrations ORDER BY name").fetchall()
        return [row[0] for row in rows]


_DUCKDB_PID = re.compile(r"\(PID (\d+)\)")


def _connect(path: Path) -> duckdb.DuckDBPyConnection:
    """The library's one DuckDB connection, using half the cores (at least one).

    Its queries are small (a BM25 over a few terms' postings, a hundred chunks by id); on 2
    cores, splitting them over DuckDB's threads cost more than it gained, and took the core
    the vector side and the embedder need at the same moment: a hybrid search at 100k
    chunks went from 26-28 ms to 22-24 ms (p50, bench/search_bench.py) with one thread.
    """
    try:
        with _private_files():
            conn = duckdb.connect(str(path), config={**_SAFE_CONFIG, "threads": _duckdb_threads()})
    except duckdb.IOException as exc:
        text = str(exc)
        if "Could not set lock" in text or "Conflicting lock" in text:
            match = _DUCKDB_PID.search(text)
            raise library_in_use(
                path, {"pid": int(match.group(1)) if match else "unknown"}
            ) from exc
        if "not a valid DuckDB database" in text or "database file" in text.lower():
            raise V2CError(
                "bad-request",
                f"{path} is not a v2c library (DuckDB could not read it)",
                "pass --library with a .duckdb file made by v2c, or a new path to start one",
            ) from exc
        raise V2CError(
            "internal",
            f"cannot open the library {path}: {text.splitlines()[0]}",
            "check that the folder exists and is writable",
        ) from exc
    except duckdb.Error as exc:
        raise V2CError(
            "bad-request",
            f"{path} is not a v2c library: {str(exc).splitlines()[0]}",
            "pass --library with a .duckdb file made by v2c, or a new path to start one",
        ) from exc
    for name in (path.name, path.name + ".wal"):
        _tighten(path.with_name(name))
    return conn


def _clip(names: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(name[:60] for name in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def refuse_code(conn: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Refuse a library holding views or macros: v2c makes neither, so a file that has
    them was made or changed by something else, and reading it would run its SQL."""
    views = conn.execute(
        "SELECT schema_name || '.' || view_name FROM duckdb_views() WHERE NOT internal"
    ).fetchall()
    macros = conn.execute(
        "SELECT DISTINCT schema_name || '.' || function_name FROM duckdb_functions() "
        "WHERE NOT internal"
    ).fetchall()
    found = [("view", str(row[0])) for row in views] + [("macro", str(row[0])) for row in macros]
    if not found:
        return
    kinds = " and ".join(sorted({kind + "s" for kind, _ in found}))
    raise V2CError(
        "bad-request",
        f"refusing to open {path}: it holds {kinds} ({_clip([n for _, n in found])}), which "
        "a v2c library never has, so it was made or changed by another program",
        "open only libraries made by v2c (if someone sent you this file, do not use it), or "
        "pass --library with a new path to start one",
        {"library": str(path), "objects": [name for _, name in found][:20]},
    )


def _duckdb_threads() -> int:
    return max(1, (os.cpu_count() or 2) // 2)


def open_library(path: Path) -> LibraryStore:
    """Claim the library file for this process, open it, and bring its schema up to date."""
    path = Path(path)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    _warn_if_shared_folder(path.parent)
    lock = LibraryLock(path)
    lock.acquire()
    try:
        conn = _connect(path)
        try:
            refuse_code(conn, path)
            with _private_files():
                migrate(conn)
            known = {m.name for m in MIGRATIONS}
            recorded = [r[0] for r in conn.execute("SELECT name FROM schema_migrations").fetchall()]
            newer = sorted(set(recorded) - known)
            if newer:
                raise V2CError(
                    "bad-request",
                    f"the library {path} was made by a newer v2c (schema {newer[-1]})",
                    "update v2c desktop to open this library",
                )
        except BaseException:
            conn.close()
            raise
    except BaseException:
        lock.release()
        raise
    return LibraryStore(path, conn, lock)
