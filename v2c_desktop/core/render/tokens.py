"""A cheap, dependency-free token estimate for planning how much transcript to read.

Agents budget their context in tokens, so every size we report (outline sections, pages,
sections) is in tokens. We do not ship a tokenizer for this: tokenizers differ per model and
a plan only needs the right order of magnitude. English speech runs at about 150 words a
minute, roughly 50,000 characters an hour; at the usual ~4 characters per token that is
about 12k tokens per hour, which matches what model tokenizers report for transcripts.
"""

from __future__ import annotations

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """About `len(text) / 4`, rounded up so non-empty text never counts as free.

    Rounding up matters for paging: a budget check that called a short text 0 tokens
    would let pages run over their budget one small piece at a time.
    """
    if not text:
        return 0
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
