"""A value derived from the library's tables, kept until the library is next written to.

The search engine derives several things on every search (index state, BM25's corpus
figures, the videos' titles and chapters) that only change when something is written. This
process is the only writer (the owner lock), so `LibraryStore.generation` says exactly when
a kept value may be stale.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from .database import LibraryStore

T = TypeVar("T")


class UntilWrite(Generic[T]):
    """One derived value; `get` computes it again only after the store has written."""

    def __init__(self, store: LibraryStore) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._kept: tuple[int, T] | None = None

    def get(self, compute: Callable[[], T], *, keep: Callable[[T], bool] = lambda _: True) -> T:
        """The kept value, or `compute()`'s, kept when `keep` says it may be.

        The generation is read BEFORE computing: a write committing meanwhile costs one
        more computation later, never a stale value. Callers on several threads compute
        one at a time.
        """
        with self._lock:
            generation = self._store.generation
            kept = self._kept
            if kept is not None and kept[0] == generation:
                return kept[1]
            value = compute()
            if keep(value):
                self._kept = (generation, value)
            return value
