"""Names for topics no model named: the terms a group of passages is about.

A topic of an extractive brief is a group of passages; its name must say what they share
("gradient descent, cost function"), not which words happened to be frequent in them
("core, machine, boom"). A term is scored by how many of the group's passages hold it, how
often the scope's videos say it at all (a concept is repeated; an aside is said once) and
how few of their lines hold it (a word on every line names nothing). Two-word terms are
preferred when they recur, since concepts are often two words. The question's own words
are left out: every passage shares them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

from ..search.text_tokens import FILLER, STOP_WORDS, stem
from .verify import normalise

#: Words of talk, not of topics: they recur in every transcript and name nothing.
_TALK = """
    actually again ago almost along already always another anyway anything around away
    back basically call called calls became become becomes begin being best better bit
    big came come comes
    coming could course different does doing done each easy else end enough even ever
    every everyone everything example exactly fact far feel felt find first five four
    get gets getting give given gives go goes going gone good got great guess guys happen
    happens hard help here hey idea ideas important instead keep kind know known last
    later least left let like likely little look looking looks lot lots made make makes
    making maybe mean means might mind minute minutes moment need needs never new next
    nice nothing number okay one ones others part particular people perhaps pick place
    point points pretty probably put quite rather really remember right said say saying
    says second see seems seen sense show shows simple simply since six small something
    sometimes sort start started stuff sure take takes talk talked talking tell ten
    than times
    thing things think thinking third three today together told took toward towards
    tried true try trying turn turns two understand unless use used uses using video
    videos want wanted wants watch way ways well whatever whole without word words work
    works world yes
"""
TALK_WORDS = frozenset(_TALK.split())
SKIP = STOP_WORDS | FILLER | TALK_WORDS
MIN_LETTERS = 3
BIGRAM_BONUS = 1.5
#: A further term joins a name only when it scores at least this share of the first.
SECOND_TERM = 0.6


class TermStats:
    """How often the scope's transcripts say each term, and on how many lines."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.said: Counter[str] = Counter()
        self.lines_with: Counter[str] = Counter()
        self.lines = 0
        for line in lines:
            self.lines += 1
            terms = list(_terms(normalise(line)))
            self.said.update(terms)
            self.lines_with.update(set(terms))

    def weight(self, term: str) -> float:
        said = self.said.get(term, 0)
        if not said:
            return 0.0
        rarity = math.log((self.lines + 1) / (self.lines_with[term] + 0.5))
        return math.log(1 + said) * max(rarity, 0.0)


def _useful(word: str) -> bool:
    return len(word) >= MIN_LETTERS and word not in SKIP and not word.isdigit()


def _terms(words: Sequence[str]) -> Iterable[str]:
    for i, word in enumerate(words):
        if not _useful(word):
            continue
        yield word
        if i + 1 < len(words) and _useful(words[i + 1]):
            yield f"{word} {words[i + 1]}"


def topic_name(
    passages: Sequence[str],
    question: Iterable[str],
    stats: TermStats,
    terms: int = 2,
    taken: Iterable[str] = (),
) -> str:
    """The best `terms` terms of `passages`, joined; "" for none. The question's words (in
    any form: "learn" and "learning") and the terms of `taken` (other topics' names, or
    their terms) are not used: they would not tell this topic from the others."""
    asked = {stem(w) for w in normalise(" ".join(question))}
    used = {term for name in taken for term in name.split(", ") if term}
    held: Counter[str] = Counter()
    for text in passages:
        held.update(set(_terms(normalise(text))))
    scored: list[tuple[float, str]] = []
    for term, count in held.items():
        words = term.split()
        if all(stem(w) in asked for w in words) or term in used:
            continue
        weight = stats.weight(term)
        if len(words) == 2:
            if stats.said.get(term, 0) < 2:
                continue  # a pair said once is a coincidence of words, not a concept
            weight *= BIGRAM_BONUS
        scored.append((count * weight, term))
    scored.sort(key=lambda x: (-x[0], x[1]))
    chosen: list[str] = []
    for value, term in scored:
        if chosen and value < SECOND_TERM * scored[0][0]:
            break  # a second name far weaker than the first only adds noise
        if any(set(term.split()) & set(c.split()) for c in chosen):
            continue  # "gradient descent" and "descent" are one name
        chosen.append(term)
        if len(chosen) == terms:
            break
    return ", ".join(chosen)


def key_terms(stats: TermStats, question: Iterable[str], count: int) -> list[str]:
    """The scope's `count` most telling terms (concepts said again and again, on few of its
    lines), two-word terms first among equals; the question's own words left out."""
    asked = {stem(w) for w in normalise(" ".join(question))}
    scored: list[tuple[float, str]] = []
    for term, said in stats.said.items():
        words = term.split()
        if said < 3 or all(stem(w) in asked for w in words):
            continue
        weight = stats.weight(term) * (BIGRAM_BONUS if len(words) == 2 else 1.0)
        scored.append((weight * math.log(1 + said), term))
    scored.sort(key=lambda x: (-x[0], x[1]))
    out: list[str] = []
    for _, term in scored:
        if any(set(term.split()) & set(t.split()) for t in out):
            continue
        out.append(term)
        if len(out) == count:
            break
    return out
