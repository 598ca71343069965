"""Noticing an answer that loops: the same sentence (or citation line) written again.

Small local models fall into loops ("It learns from its mistakes [1]. It learns from its
mistakes [1]. ...") and would fill `max_tokens` with them. The guard reads the streamed text,
splits it into finished sentences (ended by `.`/`!`/`?`, a citation `]` or a line break,
then whitespace) and says stop when a sentence of some substance comes back: compared without
case, citation markers, punctuation or spacing, so "[1]" versus "[2]" is still a repeat.
"""

from __future__ import annotations

import re

_END = re.compile(r"(?<=[.!?\]\n])\s+")
_MARKERS = re.compile(r"\[[^\]]*\]")
_NOISE = re.compile(r"[^\w]+")
MIN_CHARS = 12  # "Yes." twice is not a loop


def sentence_key(sentence: str) -> str:
    return _NOISE.sub(" ", _MARKERS.sub(" ", sentence)).strip().lower()


class RepeatGuard:
    """Feed streamed text; `feed` returns True once a finished sentence repeats."""

    def __init__(self) -> None:
        self._pending = ""
        self._seen: set[str] = set()
        self.repeated: str | None = None

    def feed(self, text: str) -> bool:
        self._pending += text
        parts = _END.split(self._pending)
        self._pending = parts.pop()  # the unfinished tail waits for its end
        for sentence in parts:
            key = sentence_key(sentence)
            if len(key) < MIN_CHARS:
                continue
            if key in self._seen:
                self.repeated = sentence.strip()
                return True
            self._seen.add(key)
        return False
