"""The one shape every format parser hands on: a cue with its times and raw text lines."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class RawCue:
    """One cue as its format stores it: start/end in seconds and its text lines (markup kept)."""

    start: float
    end: float
    lines: list[str] = field(default_factory=list)
