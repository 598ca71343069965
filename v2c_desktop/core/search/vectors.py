"""The vector side: a normalised in-memory matrix per embedding model, kept in sync with DuckDB.

Brute-force cosine in DuckDB takes about 80 ms at 100k x 384 here; numpy over a
pre-normalised matrix takes about 7 ms on one core and 5 ms on two, so the matrix lives in
memory, loaded once from the `vectors` table and updated whenever a video is (re)indexed or
removed.

In memory each unit vector is held as int8 codes with one float32 scale per row (its
largest component / 127): a quarter of float32's memory (1M chunks x 384: 0.36 GiB, not
1.43), with cosines off by at most about 0.002, well inside the differences the search acts
on (`bench/vector_precision.py` measures the eval with both). DuckDB keeps the float32
vectors. The product reads the codes in blocks cast to float32 in a per-thread scratch
buffer; it is memory-bound, so reading a quarter of the bytes pays for the cast (at 100k
rows about 5 ms on two threads either way here). float16 would be more precise at half the
memory, but numpy's float16 cast here runs without F16C and took about 100 ms at 100k.

Updates never copy the matrix: rows are appended into spare capacity (doubling when full)
and a replaced or removed video's rows are only marked dead in the small per-row video-code
array, which is copied on write. A search takes a snapshot (matrix view, ids, codes) under
the lock and computes on it while indexing goes on. Dead rows are compacted away once they
are half of the matrix.
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

DEAD = -1
CODES = np.dtype(np.int8)  # what a row is held as (float32 only in benchmarks' exact index)


class VectorIndex:
    """Chunk vectors of ONE embedding model; never mixes models (their spaces differ)."""

    def __init__(self, model: str, *, exact: bool = False) -> None:
        """`exact` keeps float32 rows (scales all 1): only benchmarks compare with it."""
        self.model = model
        self._lock = threading.Lock()
        self._dtype = np.dtype(np.float32) if exact else CODES
        self._buffer = np.zeros((0, 0), dtype=self._dtype)  # codes; capacity rows, [:_rows] in use
        self._scales = np.zeros(0, dtype=np.float32)  # per row: cosine = codes . q * scale
        self._rows = 0
        self._ids = np.zeros(0, dtype=np.int64)
        self._video_codes = np.zeros(0, dtype=np.int32)  # DEAD for a removed row
        self._codes: dict[str, int] = {}
        self._counts: dict[int, int] = {}  # live rows per video code
        self._dead = 0
        self._live_videos: frozenset[str] | None = None  # cached answer of video_ids()

    def __len__(self) -> int:
        return self._rows - self._dead

    def video_ids(self) -> frozenset[str]:
        """Videos with live rows; every search asks, so the set is kept until a change."""
        with self._lock:
            if self._live_videos is None:
                self._live_videos = frozenset(
                    v for v, code in self._codes.items() if self._counts.get(code)
                )
            return self._live_videos

    def load(
        self, ids: npt.NDArray[np.int64], videos: Sequence[str], matrix: npt.NDArray[np.float32]
    ) -> None:
        with self._lock:
            self._codes = {}
            codes = np.asarray([self._code(v) for v in videos], dtype=np.int32)
            self._buffer, self._scales = _quantised(_normalised(matrix), self._dtype)
            self._rows = len(self._buffer)
            self._ids = np.asarray(ids, dtype=np.int64)
            self._video_codes = codes
            self._counts = {}
            for code, count in zip(*np.unique(codes, return_counts=True), strict=True):
                self._counts[int(code)] = int(count)
            self._dead = 0
            self._live_videos = None

    def _code(self, video_id: str) -> int:
        return self._codes.setdefault(video_id, len(self._codes))

    def replace_video(
        self, video_id: str, ids: Sequence[int], matrix: npt.NDArray[np.float32]
    ) -> None:
        """Swap one video's vectors; a running search keeps the snapshot it started with."""
        new = _quantised(_normalised(matrix), self._dtype)
        with self._lock:
            self._live_videos = None
            code = self._code(video_id)
            codes = self._video_codes
            if self._counts.get(code):
                codes = np.where(codes == code, DEAD, codes).astype(np.int32)
                self._dead += self._counts.pop(code)
            n = len(ids)
            if n:
                self._append(new, np.asarray(ids, dtype=np.int64), code, codes)
                self._counts[code] = n
            else:
                self._video_codes = codes
            if self._dead and self._dead * 2 >= self._rows:
                self._compact()

    def _append(
        self,
        new: tuple[npt.NDArray[np.generic], npt.NDArray[np.float32]],
        ids: npt.NDArray[np.int64],
        code: int,
        codes: npt.NDArray[np.int32],
    ) -> None:
        vectors, scales = new
        rows, n = self._rows, len(ids)
        if self._buffer.shape[1] != vectors.shape[1] and rows - self._dead == 0:
            self._buffer = np.zeros((0, vectors.shape[1]), dtype=self._dtype)
            self._scales = np.zeros(0, dtype=np.float32)
            rows, self._rows, self._dead = 0, 0, 0
            ids_before, codes_before = self._ids[:0], codes[:0]
        else:
            ids_before, codes_before = self._ids, codes
        if rows + n > len(self._buffer):  # grow: the old buffer stays with running searches
            capacity = max(2 * len(self._buffer), rows + n, 1024)
            grown = np.zeros((capacity, vectors.shape[1]), self._dtype)
            grown[:rows] = self._buffer[:rows]
            grown_scales = np.zeros(capacity, np.float32)
            grown_scales[:rows] = self._scales[:rows]
            self._buffer, self._scales = grown, grown_scales
        # rows past a snapshot's length: never read by it
        self._buffer[rows : rows + n] = vectors
        self._scales[rows : rows + n] = scales
        self._ids = np.concatenate([ids_before, ids])
        self._video_codes = np.concatenate([codes_before, np.full(n, code, dtype=np.int32)])
        self._rows = rows + n

    def _compact(self) -> None:
        live = self._video_codes != DEAD
        self._buffer = np.ascontiguousarray(self._buffer[: self._rows][live])
        self._scales = np.ascontiguousarray(self._scales[: self._rows][live])
        self._ids = self._ids[live]
        self._video_codes = self._video_codes[live]
        self._rows = len(self._ids)
        self._dead = 0

    def drop_video(self, video_id: str) -> None:
        dims = self._buffer.shape[1] or 1
        self.replace_video(video_id, [], np.zeros((0, dims), np.float32))

    def memory_bytes(self) -> int:
        """Bytes of the live rows' codes and scales (what a benchmark reports)."""
        with self._lock:
            rows, dims = self._rows - self._dead, self._buffer.shape[1]
        return rows * (dims * self._dtype.itemsize + np.dtype(np.float32).itemsize)

    def without_vectors(self, chunk_ids: Sequence[int]) -> set[int]:
        """Those of `chunk_ids` that have no live vector (their video is not embedded yet
        or could not be). A sort of every id: the engine asks only while some videos are
        keyword-only."""
        with self._lock:
            ids, codes, dead = self._ids, self._video_codes, self._dead
        if not chunk_ids:
            return set()
        wanted = np.asarray(chunk_ids, dtype=np.int64)
        live = ids[codes != DEAD] if dead else ids
        return {int(c) for c in wanted[~np.isin(wanted, live)]}

    def top(
        self,
        query: npt.NDArray[np.float32],
        *,
        limit: int,
        videos: set[str] | None = None,
    ) -> list[tuple[int, float]]:
        """The `limit` most similar chunks as (chunk id, cosine), best first."""
        with self._lock:
            matrix, scales = self._buffer[: self._rows], self._scales[: self._rows]
            ids, codes, dead = self._ids, self._video_codes, self._dead
            allowed = (
                None
                if videos is None
                else np.asarray(
                    [self._codes[v] for v in videos if v in self._codes], dtype=np.int32
                )
            )
        if len(ids) == 0 or limit < 1:
            return []
        q = _normalised(query.reshape(1, -1))[0]
        if matrix.shape[1] != len(q):
            return []
        scores = _similarities(matrix, scales, q)
        if allowed is not None:
            scores[~np.isin(codes, allowed)] = -np.inf
        elif dead:
            scores[codes == DEAD] = -np.inf
        k = min(limit, len(scores))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(int(ids[i]), float(scores[i])) for i in best if np.isfinite(scores[i])]


#: Below this many rows the product runs on the calling thread; above, it is cut into one
#: slice per core. The product is memory-bound: at 100k x 384 one thread takes about 8 ms
#: here and two about 5 ms, and in a hybrid search the slices finish while BM25 still runs.
PARALLEL_ROWS = 25_000
#: Rows cast to float32 at a time: 2048 x 384 floats (3 MiB) stay in cache for the product.
BLOCK_ROWS = 2048
_SLICES = max(1, min(4, os.cpu_count() or 1))
_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=_SLICES, thread_name_prefix="v2c-vectors")
_SCRATCH = threading.local()


def _similarities(
    matrix: npt.NDArray[np.generic], scales: npt.NDArray[np.float32], q: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """`(matrix * scales[:, None]) @ q`, sliced across threads (numpy releases the GIL).

    A row's score depends only on that row (its codes cast to float32, one einsum, times
    its scale), so slicing never changes a score's bits. einsum, not `@`: BLAS's own worker
    threads spin for ~50 ms of CPU after each call, taking a core from BM25 running at the
    same time.
    """
    rows = len(matrix)
    out = np.empty(rows, dtype=np.float32)
    if rows <= PARALLEL_ROWS or _SLICES == 1:
        _product(matrix, scales, q, out)
        return out
    step = -(-rows // _SLICES)
    slices = [
        _POOL.submit(_product, matrix[a : a + step], scales[a : a + step], q, out[a : a + step])
        for a in range(0, rows, step)
    ]
    for part in slices:
        part.result()
    return out


def _product(
    matrix: npt.NDArray[np.generic],
    scales: npt.NDArray[np.float32],
    q: npt.NDArray[np.float32],
    out: npt.NDArray[np.float32],
) -> None:
    """One slice of `_similarities`, into `out`, block by block through this thread's scratch."""
    dims = matrix.shape[1]
    scratch: npt.NDArray[np.float32] | None = getattr(_SCRATCH, "block", None)
    if scratch is None or scratch.shape[1] != dims:
        scratch = _SCRATCH.block = np.empty((BLOCK_ROWS, dims), dtype=np.float32)
    for a in range(0, len(matrix), BLOCK_ROWS):
        part = matrix[a : a + BLOCK_ROWS]
        block = scratch[: len(part)]
        np.copyto(block, part, casting="unsafe")
        np.einsum("ij,j->i", block, q, out=out[a : a + len(part)])
    np.multiply(out, scales, out=out)


def _quantised(
    matrix: npt.NDArray[np.float32], dtype: np.dtype[np.generic] = CODES
) -> tuple[npt.NDArray[np.generic], npt.NDArray[np.float32]]:
    """Unit rows as int8 codes and per-row scales: row ~= codes * scale, |error| <= scale/2
    (float32 rows unchanged, scales 1, for `exact`)."""
    if dtype == np.float32:
        return matrix, np.ones(len(matrix), dtype=np.float32)
    if matrix.size == 0:
        return np.zeros(matrix.shape, dtype=np.int8), np.zeros(len(matrix), dtype=np.float32)
    peak = np.abs(matrix).max(axis=1)
    scales = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    codes = np.rint(matrix / scales[:, None]).clip(-127, 127).astype(np.int8)
    return codes, scales


def _normalised(matrix: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.size == 0:
        return matrix.reshape(0, matrix.shape[-1] if matrix.ndim == 2 else 0)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(matrix / norms, dtype=np.float32)
