"""Every write runs on the store's one worker thread: a stray thread or the event loop's own
thread is refused, synchronous code on the main thread is handed to the worker."""

from __future__ import annotations

import ast
import asyncio
import inspect
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.owner.toys import run
from v2c_desktop.core.store import LibraryStore, open_library


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LibraryStore]:
    opened = open_library(tmp_path / "lib.duckdb")
    yield opened
    opened.close()


def test_a_write_through_run_takes_the_worker(store: LibraryStore) -> None:
    async def go() -> tuple[int, int, str]:
        worker = await store.run(threading.get_ident)
        collection = await store.run(store.create_collection, "Talks")
        return worker, threading.get_ident(), collection.name

    worker, loop_thread, name = run(go())
    assert name == "Talks" and worker != loop_thread
    assert store.list_collections()[0].name == "Talks"


def test_a_write_from_a_stray_thread_is_refused(store: LibraryStore) -> None:
    """`asyncio.to_thread(store.save_...)` used to write beside the worker, out of order."""

    async def go() -> None:
        await asyncio.to_thread(store.create_collection, "Talks")

    with pytest.raises(RuntimeError, match="create_collection was called on the thread"):
        run(go())
    assert store.list_collections() == []  # nothing was written


def test_a_write_from_a_plain_thread_is_refused(store: LibraryStore) -> None:
    errors: list[BaseException] = []

    def write() -> None:
        try:
            store.create_chat("t", {})
        except BaseException as exc:  # checked below, in the test's thread
            errors.append(exc)

    thread = threading.Thread(target=write, name="stray")
    thread.start()
    thread.join()
    assert len(errors) == 1 and "'stray'" in str(errors[0])
    assert store.list_chats() == []


def test_a_write_on_the_event_loops_thread_is_refused(store: LibraryStore) -> None:
    """Waiting for the worker there would stall the loop: the caller must await `run`."""

    async def go() -> None:
        store.create_collection("Talks")

    with pytest.raises(RuntimeError, match=r"event loop's thread: await store.run"):
        run(go())
    assert store.list_collections() == []


def test_synchronous_code_on_the_main_thread_writes_through_the_worker(
    store: LibraryStore,
) -> None:
    """A script or a test without a loop may call a write directly: it runs on the worker
    (a transaction opened anywhere else is refused, so the write taking proves it)."""
    collection = store.create_collection("Talks")
    assert store.get_collection(collection.id).name == "Talks"
    assert not store.on_worker()
    refused = pytest.raises(RuntimeError, match="outside the store's worker thread")
    with refused, store._transaction():
        pass


def test_every_method_that_opens_a_transaction_is_a_write() -> None:
    """A new write method without `@_write` would only fail when first called off the
    worker; this finds it by reading the class."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(LibraryStore)))
    (cls,) = tree.body
    assert isinstance(cls, ast.ClassDef)
    unguarded = []
    writes = 0
    for node in cls.body:
        if not isinstance(node, ast.FunctionDef) or node.name == "_transaction":
            continue
        opens = "self._transaction()" in ast.unparse(node)
        decorated = any(ast.unparse(d) == "_write" for d in node.decorator_list)
        writes += decorated
        if opens and not decorated:
            unguarded.append(node.name)
    assert writes > 20 and not unguarded, unguarded
