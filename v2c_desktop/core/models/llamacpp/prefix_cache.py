"""Saved llama.cpp states of prompt prefixes (a chat's source block), on disk, LRU-bounded.

Prefilling a source block costs seconds on a CPU; restoring its KV state from a file costs
milliseconds. A state is saved once, right after its prefix was evaluated, and restored when
a later prompt (a follow-up after a restart, another question over the same sources) starts
with exactly the same tokens. A chat's last turn is saved too (the whole context after its
answer), so a follow-up after a restart reads only its new question. The file name is a
hash of everything the state depends on: the model file (path, size, mtime), the context
settings that shape the KV cache, this module's format version and the exact prefix
tokens. The tokens include the transcripts' text, so a re-imported video whose transcript
changed simply misses: stale state can never be restored, and no re-import hook is
needed. The directory is bounded by total size; the least recently used files (mtime,
refreshed on every hit) go first.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import logging
import os
from collections.abc import Sequence
from pathlib import Path

import llama_cpp
import numpy as np
from llama_cpp import Llama

log = logging.getLogger("v2c_desktop.core.models.llamacpp")

FORMAT_VERSION = 1
DEFAULT_MAX_BYTES = 1 << 30
SUFFIX = ".kv"


class PrefixCache:
    """A directory of `<key>.kv` files written by `llama_state_seq_save_file`."""

    def __init__(self, directory: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.directory = Path(directory)
        self.max_bytes = max_bytes

    def key(self, identity: str, tokens: Sequence[int]) -> str:
        digest = hashlib.sha256(f"v{FORMAT_VERSION}\n{identity}\n".encode())
        digest.update(np.asarray(tokens, dtype=np.int32).tobytes())
        return digest.hexdigest()[:40]

    def path(self, identity: str, tokens: Sequence[int]) -> Path:
        return self.directory / f"{self.key(identity, tokens)}{SUFFIX}"

    def longest(self, identity: str, tokens: Sequence[int], floor: int) -> int:
        """The length of the longest prefix of `tokens`, longer than `floor` and shorter
        than the whole, that has a saved state (0: none). Every prefix's key is one step
        of a running hash, so looking at all of them costs about a millisecond."""
        saved = {p.name for p in self.files()}
        if not saved:
            return 0
        digest = hashlib.sha256(f"v{FORMAT_VERSION}\n{identity}\n".encode())
        data = np.asarray(tokens, dtype=np.int32).tobytes()
        best = 0
        for k in range(1, len(tokens)):
            digest.update(data[4 * (k - 1) : 4 * k])
            if k > floor and f"{digest.copy().hexdigest()[:40]}{SUFFIX}" in saved:
                best = k
        return best

    def load(self, llm: Llama, identity: str, tokens: Sequence[int]) -> bool:
        """Put the saved state of exactly `tokens` into `llm`'s context; False on a miss.

        The context is cleared first; on success `llm` believes it has evaluated `tokens`
        (its prefix matching then evaluates only what follows).
        """
        path = self.path(identity, tokens)
        if not path.is_file():
            return False
        capacity = len(tokens)
        out = (llama_cpp.llama_token * capacity)()
        count = ctypes.c_size_t(0)
        memory = llama_cpp.llama_get_memory(llm.ctx)
        if memory is not None:
            llama_cpp.llama_memory_clear(memory, True)
        llm.n_tokens = 0
        read = llama_cpp.llama_state_seq_load_file(
            llm.ctx, str(path).encode(), 0, out, capacity, ctypes.byref(count)
        )
        if not read or count.value != capacity or list(out) != list(tokens):
            log.warning("prefix state %s did not load; it is removed", path.name)
            with contextlib.suppress(OSError):
                path.unlink()
            if memory is not None:
                llama_cpp.llama_memory_clear(memory, True)
            return False
        llm.input_ids[:capacity] = np.asarray(tokens, dtype=np.intc)
        llm.n_tokens = capacity
        llm._requires_eval = True  # logits are not part of the state: decode one token again
        with contextlib.suppress(OSError):
            os.utime(path)  # a hit is a use: keep it longest
        return True

    def save(self, llm: Llama, identity: str, tokens: Sequence[int]) -> Path | None:
        """Write the state of `llm`'s first `len(tokens)` positions (which must hold exactly
        `tokens`), then trim the directory to its size bound."""
        path = self.path(identity, tokens)
        if path.is_file():
            return path
        self.directory.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.part")
        array = (llama_cpp.llama_token * len(tokens))(*tokens)
        written = llama_cpp.llama_state_seq_save_file(
            llm.ctx, str(partial).encode(), 0, array, len(tokens)
        )
        if not written:
            with contextlib.suppress(OSError):
                partial.unlink()
            return None
        os.replace(partial, path)  # readers never see half a file
        self.trim()
        return path

    def files(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return [p for p in self.directory.iterdir() if p.suffix == SUFFIX]

    def size(self) -> int:
        return sum(_size(p) for p in self.files())

    def trim(self) -> None:
        """Drop least recently used files until the directory fits `max_bytes`."""
        files = sorted(self.files(), key=_mtime)
        total = sum(_size(p) for p in files)
        while files and total > self.max_bytes:
            oldest = files.pop(0)
            total -= _size(oldest)
            with contextlib.suppress(OSError):
                oldest.unlink()

    def clear(self) -> None:
        for path in self.files():
            with contextlib.suppress(OSError):
                path.unlink()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
