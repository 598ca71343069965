"""Citation markers in answer text: recognised, checked against the sources, kept or removed.

A marker is a bracket holding source numbers. The forms models really write are accepted
and normalised to `[n]` (one bracket per number, so the UI has a single form to link):

- `[3]`, `[1][3]` (kept as they are) and `[1, 3]` / `[1; 3]` (-> `[1][3]`);
- spaced: `[ 2 ]` (-> `[2]`); a space between numbers without a comma (`[1 2]`) is not a
  marker, it reads as text;
- full-width and CJK forms: `［2］`, `【2】`, `[1，3]`, `[1、3]`, full-width digits;
- gpt-oss's native `【7†L0-L4】` / `【7†source】` (the part after the dagger is dropped).

A number that matches no source is removed (and recorded), and when a whole marker goes,
the spaces just before it go too, so "491 hp [9]." reads "491 hp.". Brackets whose content
is not numbers (`[abc]`, `[Music]`, `[ ]`, a Markdown link) are plain text. A side effect
accepted on purpose: an interval such as `[0, 1]` in a maths answer reads as a marker (the
prompt reserves brackets for citations).

`CitationFilter` does this on a stream: text is released as soon as it cannot be part of a
marker; an unfinished `[...` is held until its closing bracket (or until it stops looking
like a marker, or grows past `MAX_MARKER_CHARS`). It works one character at a time with
no look-ahead, so the output never depends on where the deltas were split, and
`check_text` is the same machine run over the whole text.
"""

from __future__ import annotations

import re
from collections.abc import Collection

OPENERS = "[［【"
_CLOSER = {"[": "]", "［": "］", "【": "】"}
_SPACES = " \t\u00a0\u3000"
MAX_MARKER_CHARS = 24
"""A held `[...` longer than this is text: `[1, 2, 3, 4, 5]` fits, a stray `[` is not held
for long."""

_S = f"[{_SPACES}]*"
_SEP = "[,;，、]"
_TAIL = "†[^\\[\\]［］【】\n]*"
_BODY = rf"{_S}\d+(?:{_S}{_SEP}{_S}\d+)*{_S}"
_PREFIX = re.compile(rf"[\[［【]{_S}(?:\d+(?:{_S}{_SEP}{_S}\d+)*{_S}(?:{_SEP}{_S}|{_TAIL})?)?")
_COMPLETE = re.compile(rf"[\[［【]{_BODY}(?:{_TAIL})?[\]］】]")
_SPACED_MARKER = re.compile(rf"[{_SPACES}]*({_COMPLETE.pattern})")
_DIGITS = re.compile(r"\d+")


def marker_numbers(marker: str) -> list[int] | None:
    """The numbers of a complete marker (each once, in order), or None if it is not one."""
    if len(marker) > MAX_MARKER_CHARS or not _COMPLETE.fullmatch(marker):
        return None
    if _CLOSER.get(marker[0]) != marker[-1]:
        return None
    numbers = (int(d) for d in _DIGITS.findall(marker.split("†", 1)[0]))
    return list(dict.fromkeys(numbers))


class CitationFilter:
    """Streaming check of citation markers: `feed` deltas, then `finish` once.

    `unverified` lists the removed numbers and `cited` the kept ones, each once, in order.
    """

    def __init__(self, valid: Collection[int]) -> None:
        self.valid = frozenset(valid)
        self.unverified: list[int] = []
        self.cited: list[int] = []
        self._space = ""  # trailing spaces, held in case a removed marker follows
        self._marker = ""  # an unfinished marker candidate, starting with its opener

    def feed(self, delta: str) -> str:
        """The part of the text seen so far that is now safe to show."""
        if not self._marker and not any(c in delta for c in OPENERS):
            text = self._space + delta
            shown = text.rstrip(_SPACES)
            self._space = text[len(shown) :]
            return shown
        out: list[str] = []
        for char in delta:
            self._step(char, out)
        return "".join(out)

    def finish(self) -> str:
        """Everything still held: an unfinished marker at the very end is plain text."""
        out = self._space + self._marker
        self._space = self._marker = ""
        return out

    def _step(self, char: str, out: list[str]) -> None:
        if self._marker:
            candidate = self._marker + char
            if char in "]］】":
                numbers = marker_numbers(candidate)
                if numbers is not None:
                    self._marker = ""
                    self._resolve(numbers, out)
                    return
            elif len(candidate) <= MAX_MARKER_CHARS and _PREFIX.fullmatch(candidate):
                self._marker = candidate
                return
            # Not a marker: its opener is text, and the rest is read again from scratch.
            out.append(self._space + candidate[0])
            self._space = self._marker = ""
            for rest in candidate[1:]:
                self._step(rest, out)
        elif char in _SPACES:
            self._space += char
        elif char in OPENERS:
            self._marker = char
        else:
            out.append(self._space + char)
            self._space = ""

    def _resolve(self, numbers: list[int], out: list[str]) -> None:
        kept = [n for n in numbers if n in self.valid]
        for n in numbers:
            seen = self.cited if n in self.valid else self.unverified
            if n not in seen:
                seen.append(n)
        if kept:
            out.append(self._space + "".join(f"[{n}]" for n in kept))
        self._space = ""


def check_text(text: str, valid: Collection[int]) -> tuple[str, list[int]]:
    """`text` with unknown source numbers removed, and those numbers (the filter, at once)."""
    checker = CitationFilter(valid)
    out = checker.feed(text) + checker.finish()
    return out, checker.unverified


def cited_numbers(text: str) -> list[int]:
    """Every source number the markers of `text` cite, once each, in order of appearance."""
    out: dict[int, None] = {}
    for match in _COMPLETE.finditer(text):
        for n in marker_numbers(match.group()) or ():
            out.setdefault(n, None)
    return list(out)


def strip_citations(text: str) -> str:
    """`text` without any citation marker (and the spaces just before each one).

    For earlier turns of a chat: their numbers referred to an earlier list of sources, and
    left in place they would look like citations of the new list.
    """

    def drop(match: re.Match[str]) -> str:
        return "" if marker_numbers(match.group(1)) is not None else match.group()

    return _SPACED_MARKER.sub(drop, text)


def leading_markers(text: str) -> int:
    """How many characters at the start of `text` are spaces and markers only."""
    end = 0
    while match := _SPACED_MARKER.match(text, end):
        if marker_numbers(match.group(1)) is None:
            break
        end = match.end()
    return end
