"""Evidence named by transcript line, for models that write under a grammar.

A small local model asked to copy a quote word for word mostly paraphrases, and every
paraphrase fails verification: its brief ends up with nothing cited. llama.cpp enforces a
JSON Schema as a grammar, so for it the evidence field is an `enum` of the keys of the
transcript lines in the prompt (`2@4:05`: source 2, the line at 4:05). The model can then
only point at a line that exists, and the line's own text becomes the quote: verified (and
snapped) like any other, never trusted because of where it came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..timecode import clock
from .sources import BriefSource, Line

LINE_RULE = (
    "Evidence names the transcript line that shows it by that line's key (`line`, the "
    "`source@m:ss` in brackets before each line); pick the line whose words say it."
)


@dataclass
class LineKeys:
    """Every line of the prompt by its key, in prompt order."""

    lines: dict[str, tuple[BriefSource, Line]] = field(default_factory=dict)

    @classmethod
    def of(cls, parts: Iterable[tuple[BriefSource, Sequence[Line]]]) -> LineKeys:
        keys = cls()
        for source, lines in parts:
            for line in lines:
                base = f"{source.n}@{clock(line.start)}"
                key, again = base, 2
                while key in keys.lines:  # two lines starting within one second
                    key, again = f"{base}#{again}", again + 1
                keys.lines[key] = (source, line)
        return keys

    def render(self, source: BriefSource) -> str:
        """The source's lines as the prompt shows them, each after its key."""
        return "\n".join(
            f"[{key}] {line.text}" for key, (s, line) in self.lines.items() if s is source
        )

    def schema(self) -> dict[str, Any]:
        return {"type": "string", "enum": list(self.lines)}

    def ground(self, value: Any) -> Any:
        """`value` with every `{"line": key, ...}` turned into `{"source", "time", "quote",
        ...}` from that line (unknown keys are left for verification to reject)."""
        if isinstance(value, list):
            return [self.ground(v) for v in value]
        if not isinstance(value, dict):
            return value
        out = {k: self.ground(v) for k, v in value.items()}
        key = out.pop("line", None)
        if isinstance(key, str):
            found = self.lines.get(key)
            if found is None:
                out.setdefault("source", None)
            else:
                source, line = found
                out.update(source=source.n, time=clock(line.start), quote=line.text)
        return out
