"""The relevance cut-off: each side keeps only the passages close enough to its best one.

Without it a search always fills its page: the vector side has nearest neighbours however
far they are, so a query for "homunculus" in a library with two good passages returns
eighteen passages about neural networks and Bayes' theorem after them. With the cut-off
(`SearchRequest.cutoff`, which the app asks for) a side keeps:

- vector: chunks whose cosine is at least `vector_floor` and within `vector_band` of the
  side's best. With the bundled all-MiniLM-L6-v2, passages about the query score 0.4 to
  0.7 and unrelated ones 0.1 to 0.3 (measured on the corpus transcripts);
- keyword: chunks whose BM25 score is at least `keyword_share` of the side's best, which
  drops passages that share only a common word of a longer query.

What each side left out is reported in `meta["cutoff"]`, so a face can say "no more good
matches" instead of leaving the user to wonder why a page is short.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Cutoff:
    vector_floor: float = 0.35
    vector_band: float = 0.2
    keyword_share: float = 0.35


def vector_cut(ids: Sequence[int], scores: Mapping[int, float], cutoff: Cutoff) -> list[int]:
    """`ids` (best first) whose cosine clears the floor and the band below the best."""
    if not ids:
        return []
    best = max(scores[i] for i in ids)
    floor = max(cutoff.vector_floor, best - cutoff.vector_band)
    return [i for i in ids if scores[i] >= floor]


def keyword_cut(ids: Sequence[int], scores: Mapping[int, float], cutoff: Cutoff) -> list[int]:
    """`ids` (best first) whose BM25 score is at least the set share of the best one."""
    if not ids:
        return []
    floor = max(scores[i] for i in ids) * cutoff.keyword_share
    return [i for i in ids if scores[i] >= floor]
