"""The search query syntax: plain words, "exact phrases", -word and -"phrase" exclusions.

- `timing chain`: ranked by keyword and vector search together;
- `"Land Cruiser killer"`: every hit must hold this phrase (case, accents, plurals and
  -ing forms aside); its words also count as keyword terms;
- `oil -cooler`: no hit may hold "cooler" (or "coolers");
- `-"oil cooler"`: no hit may hold the phrase.

A quote left open runs to the end of the query (people forget the closing one, and
"what they meant" is then clear). Straight and curly quotes both work, since phones and
word processors type curly ones. A "-" only excludes at the start of a word: "30-minute"
and "state-of-the-art" are ordinary words. An excluded word that splits into several
words ("-30-minute") is excluded as a phrase, which is what its hyphens mean.

Phrases and exclusions are matched word for word on `phrase_tokens` (stemmed, stop words
kept, hesitations dropped), so `"the cam chain"` needs "the" right before "cam" while
"Land Cruiser killers" still matches "land cruiser killer", and "Land Cruiser, uh, killer"
too. A query with nothing to look for (empty, or only exclusions) is a "bad-request": an
exclusion can only remove hits, so there would be nothing to rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..errors import V2CError
from .text_tokens import holds_phrase_term, phrase_tokens, query_terms

__all__ = [
    "MAX_QUERY_CHARS",
    "ParsedQuery",
    "excluded",
    "parse_query",
    "phrase_matches",
    "satisfies",
]

MAX_QUERY_CHARS = 500
_QUOTES = frozenset('"“”„')
_NOTHING_HINT = "add at least one word to look for; -word only excludes"


@dataclass(frozen=True)
class ParsedQuery:
    """What a query asks for.

    `terms`: stemmed keyword terms of the plain words and the phrases, for BM25.
    `phrases`: required phrases, as typed (quotes removed). `excluded_terms`: stemmed terms
    no hit may contain. `excluded_phrases`: phrases no hit may contain, as typed.
    `text_for_embedding`: the plain words and phrases in the user's order and spelling,
    without exclusions (an embedding of "oil -cooler" would pull towards coolers).
    """

    terms: list[str]
    phrases: list[str]
    excluded_terms: list[str]
    excluded_phrases: list[str]
    text_for_embedding: str

    def to_dict(self) -> dict[str, Any]:
        """The parsed query for a search result's `meta`."""
        return {
            "terms": list(self.terms),
            "phrases": list(self.phrases),
            "excluded_terms": list(self.excluded_terms),
            "excluded_phrases": list(self.excluded_phrases),
            "text_for_embedding": self.text_for_embedding,
        }


def _items(q: str) -> list[tuple[bool, bool, str]]:
    """(is_phrase, negated, text) for each word or quoted phrase of `q`, in order."""
    items: list[tuple[bool, bool, str]] = []
    i, n = 0, len(q)
    while i < n:
        if q[i].isspace():
            i += 1
            continue
        negated = q[i] == "-" and i + 1 < n and not q[i + 1].isspace()
        j = i + 1 if negated else i
        if q[j] in _QUOTES:
            close = j + 1
            while close < n and q[close] not in _QUOTES:
                close += 1
            items.append((True, negated, " ".join(q[j + 1 : close].split())))
            i = close + 1  # an unclosed quote runs to the end
        else:
            k = j
            while k < n and not q[k].isspace() and q[k] not in _QUOTES:
                k += 1
            items.append((False, negated, q[j:k]))
            i = k
    return items


def parse_query(q: str) -> ParsedQuery:
    """Parse the search syntax (see the module doc); raises V2CError("bad-request")."""
    if len(q) > MAX_QUERY_CHARS:
        raise V2CError(
            "bad-request",
            f"the query is {len(q)} characters long; at most {MAX_QUERY_CHARS} are allowed",
            hint="shorten it to the key words or a quoted phrase",
        )
    wanted: list[str] = []
    phrases: list[str] = []
    excluded_terms: list[str] = []
    excluded_phrases: list[str] = []
    looks_for_something = False
    for is_phrase, negated, text in _items(q):
        tokens = phrase_tokens(text)
        if negated:
            if is_phrase or len(tokens) > 1:
                if tokens and text not in excluded_phrases:
                    excluded_phrases.append(text)
            elif tokens and tokens[0] not in excluded_terms:
                excluded_terms.append(tokens[0])
            continue
        if text:
            wanted.append(text)
        looks_for_something = looks_for_something or bool(tokens)
        if is_phrase and tokens and text not in phrases:
            phrases.append(text)
    if not looks_for_something:
        only = excluded_terms or excluded_phrases
        message = "the query only excludes words" if only else "the query is empty"
        raise V2CError("bad-request", message, hint=_NOTHING_HINT)
    return ParsedQuery(
        terms=query_terms(" ".join(wanted)),
        phrases=phrases,
        excluded_terms=excluded_terms,
        excluded_phrases=excluded_phrases,
        text_for_embedding=" ".join(wanted),
    )


@lru_cache(maxsize=256)
def _phrase_key(phrase: str) -> str:
    """The phrase's tokens joined by spaces (tokens are letters and digits only)."""
    return " ".join(phrase_tokens(phrase))


def _text_key(text: str) -> str:
    return f" {' '.join(phrase_tokens(text))} "


def _holds(key: str, padded_text_key: str) -> bool:
    return not key or f" {key} " in padded_text_key


def phrase_matches(phrase: str, text: str) -> bool:
    """True when `text` holds `phrase` word for word, contiguously.

    Case, diacritics and inflection are ignored ("Land Cruiser killers" matches "land
    cruiser killer"); stop words count ("the cam chain" needs the "the"); hesitations
    ("um", "uh") are skipped on both sides. An empty phrase matches anything.
    """
    return _holds(_phrase_key(phrase), _text_key(text))


def excluded(parsed: ParsedQuery, text: str) -> bool:
    """True when `text` holds an excluded word or an excluded phrase of the query."""
    if not (parsed.excluded_terms or parsed.excluded_phrases):
        return False
    return _excluded(parsed, _text_key(text))


def _excluded(parsed: ParsedQuery, padded: str) -> bool:
    if any(f" {term} " in padded for term in parsed.excluded_terms):
        return True
    return any(_phrase_key(p) and _holds(_phrase_key(p), padded) for p in parsed.excluded_phrases)


def satisfies(parsed: ParsedQuery, text: str) -> bool:
    """True when `text` holds every required phrase and nothing excluded.

    The filter a search applies to each candidate chunk; tokenizes `text` once, or, when
    the query only excludes words, looks up the distinct spellings of an ASCII text
    (`holds_phrase_term`), which answers the same.
    """
    if not (parsed.phrases or parsed.excluded_terms or parsed.excluded_phrases):
        return True
    if not (parsed.phrases or parsed.excluded_phrases):  # only words excluded
        held = holds_phrase_term(text, parsed.excluded_terms)
        if held is not None:
            return not held
    padded = _text_key(text)
    if not all(_holds(_phrase_key(p), padded) for p in parsed.phrases):
        return False
    return not _excluded(parsed, padded)
