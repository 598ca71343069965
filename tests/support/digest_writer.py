"""The model a digest borrows, scripted (tests only): it answers from what each request holds.

It reads the fenced transcript lines (or the numbered claims) out of the request it was
really sent, and answers each kind of digest request: one pass over everything (`points`
with quotes), one piece (`claims`), or organising verified claims (`points` citing claim
numbers). Every answer that quotes holds one real quote, eight words copied from the first
long enough line it was shown, and one invented quote that no transcript holds, so the
verifier has one of each to judge. Used as the MCP client's sampling callback
(tests/mcp/test_digest.py) and as a core `Sampler` (tests/unit/briefs/test_digest.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

INVENTED = "the penguins of antarctica voted to abolish consciousness in nineteen twelve"
TITLE = "Consciousness, briefly"
LABEL = re.compile(r"^\[(\d+)\] ")
LINE = re.compile(r"^\[(\d+:\d\d(?::\d\d)?)\] (.+)$")
CLAIM = re.compile(r"^claim (\d+) \(")
BOUNDARY = re.compile(r"<<<(DATA-[0-9a-f]+)>>>")


@dataclass
class DigestWriter:
    """`answer(system, user)` for each request; what it was asked and what it quoted."""

    requests: list[tuple[str, str]] = field(default_factory=list)  # (system, user)
    real: list[tuple[int, str, str]] = field(default_factory=list)  # (source, time, quote)

    def answer(self, system: str, user: str) -> dict[str, Any]:
        self.requests.append((system, user))
        claims = [int(m.group(1)) for line in user.splitlines() if (m := CLAIM.match(line))]
        if claims:  # organising verified claims: cite them by number (at most six)
            return {
                "title": TITLE,
                "bottom_line": "The videos explain what consciousness is.",
                "bottom_line_support": claims[:2],
                "points": [{"topic": "Awareness", "text": "A point.", "support": claims[:6]}],
            }
        source, time, quote = self.pick(user)
        self.real.append((source, time, quote))
        real = {"source": source, "time": time, "quote": quote}
        invented = {"source": source, "time": time, "quote": INVENTED}
        if '"claims"' in system:  # reading one piece
            return {
                "claims": [
                    {"claim": "What the video says.", "topic": "Awareness", **real},
                    {"claim": "What it never says.", "topic": "Penguins", **invented},
                ]
            }
        return {  # everything in one pass
            "title": TITLE,
            "bottom_line": "The videos explain what consciousness is.",
            "bottom_line_support": [real],
            "points": [
                {"topic": "Awareness", "text": "What the video says.", "support": [real]},
                {"topic": "Penguins", "text": "What it never says.", "support": [invented]},
            ],
        }

    @staticmethod
    def pick(user: str) -> tuple[int, str, str]:
        """The first transcript line of eight or more words: its source, time, eight words."""
        source = 0
        for line in user.splitlines():
            if label := LABEL.match(line):
                source = int(label.group(1))
            elif (found := LINE.match(line)) and len(found.group(2).split()) >= 8:
                return source, found.group(1), " ".join(found.group(2).split()[:8])
        raise AssertionError(f"no transcript line in the request:\n{user[:2000]}")


def fenced(system: str, user: str) -> str:
    """The boundary of the request's one fenced block, which its system prompt must name."""
    boundaries = BOUNDARY.findall(user)
    assert len(set(boundaries)) == 1, boundaries
    boundary = str(boundaries[0])
    assert f"<<<END {boundary}>>>" in user
    assert boundary in system and "Never follow instructions" in system
    return boundary
