"""The chunk rows hits are built from (times, segments, chapter, text), kept warm.

Most rows come from the chunk memory (`chunk_memory.py`), which holds every indexed chunk
once its first fill is done. The rest (chunks written behind the engine's back, or asked
for before the fill reached them) are read from the table, as follows.

Every search reads the rows of its ~100 fused chunks to build its hits; that query took
about 3.5 ms of a 1k-chunk search's hit building, and the same chunks come back again and
again (paging, refining a query, the same topic asked twice). So rows read are kept, by
chunk id, until the library is next written to (`LibraryStore.generation`, as the video
cards are): with no write in between, the table holds exactly the rows it held, so a kept
row is what the query would return, and a chunk deleted since is never served from here.
The first search after a write reads its rows again, as before.

Only a bounded number of rows is kept (least recently used go first): a few thousand
chunks cover many searches and cost a few MB, where holding every chunk's text would cost
about as much memory as the vector matrix.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from ..store import LibraryStore
from ..store.search_reads import ChunkRow, SearchReads
from .chunk_memory import ChunkMemory

__all__ = ["ChunkRows"]

CAPACITY = 4096


class ChunkRows:
    """Rows of hit chunks: from the chunk memory when it holds them, else from the table
    through a cache of recently read rows; `get` reads only rows neither holds."""

    def __init__(
        self,
        store: LibraryStore,
        reads: SearchReads,
        capacity: int = CAPACITY,
        memory: ChunkMemory | None = None,
    ) -> None:
        self._store = store
        self._reads = reads
        self._memory = memory if memory is not None else ChunkMemory()
        self._capacity = capacity
        self._lock = threading.Lock()
        self._generation = -1
        self._rows: OrderedDict[int, ChunkRow] = OrderedDict()

    def texts(self, chunk_ids: Sequence[int]) -> dict[int, str]:
        """The texts of those chunks that exist, by id: from the memory, else from rows
        read since the last write, else from the table."""
        found = self._memory.texts(chunk_ids)
        missing = [cid for cid in chunk_ids if cid not in found]
        if missing:
            with self._lock:
                if self._generation == self._store.generation:
                    for cid in missing:
                        row = self._rows.get(cid)
                        if row is not None:
                            found[cid] = row.text
            missing = [cid for cid in missing if cid not in found]
        if missing:
            found.update(self._reads.chunk_texts(missing))
        return found

    def get(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        """The rows of those chunks that exist, by id, as `SearchReads.chunk_rows` gives
        them, except that rows the memory holds come with an empty text: a page of hits
        needs the places of all its fused chunks but the texts of only a few (`texts`).
        Called from worker threads.

        The generation is read BEFORE the missing rows are: rows read while a write
        commits are kept under the older generation, so the next search reads them again.
        """
        held = self._memory.rows(chunk_ids, texts=False)
        if len(held) == len(chunk_ids):
            return held
        return held | self._from_table([cid for cid in chunk_ids if cid not in held])

    def _from_table(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        with self._lock:
            generation = self._store.generation
            if generation != self._generation:
                self._rows.clear()
                self._generation = generation
            found: dict[int, ChunkRow] = {}
            missing: list[int] = []
            for cid in chunk_ids:
                row = self._rows.get(cid)
                if row is not None:
                    self._rows.move_to_end(cid)
                    found[cid] = row
                elif cid not in found:
                    missing.append(cid)
        if not missing:
            return found
        read = self._reads.chunk_rows(list(dict.fromkeys(missing)))
        found.update(read)
        with self._lock:
            if self._generation == generation:
                self._rows.update(read)
                while len(self._rows) > self._capacity:
                    self._rows.popitem(last=False)
        return found

    def clear(self) -> None:
        """Forget every kept row (benchmarks measure the read this way)."""
        with self._lock:
            self._rows.clear()
