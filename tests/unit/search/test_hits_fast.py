"""Cheap hit building gives exactly the hits the word-by-word code gave (issue 18).

Snippet marking (`match_spans`), the overlap of neighbouring chunk texts
(`_unique_overlap`) and the chunk rows a hit is built from (`ChunkRows`) were made cheap;
none of them may change a hit. The old implementations live here, copied as they were, and
the new ones are compared with them on the real corpus with the terms of every evaluation
query (tests/eval/queries.json), on made-up edge cases, and through the engine.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import corpus_path
from tests.unit.search.test_engine_caches import Harness, record
from v2c_desktop.core.captions import parse_captions
from v2c_desktop.core.search import hits
from v2c_desktop.core.search.chunk_memory import ChunkMemory
from v2c_desktop.core.search.chunker import chunk_transcript
from v2c_desktop.core.search.engine import SearchEngine
from v2c_desktop.core.search.hit_rows import ChunkRows
from v2c_desktop.core.search.hits import join_chunk_texts, segment_text, snippet
from v2c_desktop.core.search.query import ParsedQuery, parse_query, satisfies
from v2c_desktop.core.search.request import SearchRequest, SearchResult
from v2c_desktop.core.search.text_tokens import (
    _ASCII_WORD,
    FILLER,
    IRREGULAR,
    KEEP,
    STOP_WORDS,
    _analyse,
    _may_match,
    _raw_words,
    _term_heads,
    holds_phrase_term,
    match_spans,
    phrase_tokens,
    query_terms,
)
from v2c_desktop.core.search.vectors import PARALLEL_ROWS, _quantised, _similarities

QUERIES = Path(__file__).resolve().parents[2] / "eval" / "queries.json"


# -- the old implementations, as they were before issue 18 -----------------------------------
def old_match_spans(text: str, terms: Collection[str]) -> list[tuple[int, int]]:
    wanted = set(terms)
    out: list[tuple[int, int]] = []
    for match in _raw_words(text):
        term, index_terms = _analyse(match.group())
        if (term and term in wanted) or any(t in wanted for t in index_terms):
            out.append(match.span())
    return out


def old_unique_overlap(text: str, chunk: str) -> int | None:
    found: int | None = None
    cut = chunk.find(" ")
    while True:
        end = len(chunk) if cut < 0 else cut
        head = chunk[:end]
        if text.endswith(head) and (len(text) == end or text[-end - 1] == " "):
            if found is not None:
                return None
            found = end
        if cut < 0:
            return found
        cut = chunk.find(" ", cut + 1)


def old_snippet(text: str, terms: set[str], max_chars: int = hits.SNIPPET_CHARS) -> str:
    spans = old_match_spans(text, terms)
    budget = max_chars
    while True:
        start, end = hits._window(text, spans, budget)
        marked = hits._mark(text, start, end, [(s, e) for s, e in spans if s >= start and e <= end])
        if len(marked) <= max_chars or budget <= 40:
            return marked[:max_chars] if len(marked) > max_chars else marked
        budget -= len(marked) - max_chars + 4


def search_terms(query: str) -> set[str]:
    """The terms a search bolds, as `SearchEngine._build_hits` makes them."""
    parsed = parse_query(query)
    return set(parsed.terms) | set(query_terms(" ".join(parsed.phrases)))


# -- the real corpus ---------------------------------------------------------------------------
def corpus_chunks() -> list[list[tuple[int, int, str]]]:
    """Each corpus transcript's chunks as (first segment, last segment, text)."""
    index = json.loads(corpus_path("transcripts/INDEX.json").read_text(encoding="utf-8"))
    out = []
    for entry in index:
        path = corpus_path(entry["path"])
        segments = parse_captions(path.read_bytes(), source_name=path.name)
        chunks = chunk_transcript(segments)
        out.append(
            [
                (
                    c.first_segment,
                    c.last_segment,
                    segment_text(s.text for s in segments[c.first_segment : c.last_segment + 1]),
                )
                for c in chunks
            ]
        )
    return out


@pytest.fixture(scope="module")
def chunks() -> list[list[tuple[int, int, str]]]:
    return corpus_chunks()


@pytest.fixture(scope="module")
def ranges(chunks: list[list[tuple[int, int, str]]]) -> list[str]:
    """Texts like a hit's: runs of 1 to 4 neighbouring chunks, joined as hits join them."""
    out: list[str] = []
    for video in chunks:
        for i in range(0, len(video), 2):
            part = video[i : i + 1 + i % 4]
            text = join_chunk_texts(part)
            out.append(text if text is not None else part[0][2])
    return out


def queries() -> list[str]:
    return [q["query"] for q in json.loads(QUERIES.read_text(encoding="utf-8"))["queries"]]


@pytest.mark.corpus
def test_snippets_and_spans_match_the_old_code_on_every_eval_query(ranges: list[str]) -> None:
    words = [set(query_terms(text)) for text in ranges]
    compared = 0
    for query in queries():
        terms = search_terms(query)
        matching = [t for t, w in zip(ranges, words, strict=True) if w & terms]
        plain = [t for t, w in zip(ranges, words, strict=True) if not w & terms]
        for text in matching[:60] + plain[:5]:
            assert match_spans(text, terms) == old_match_spans(text, terms), (query, text)
            assert snippet(text, terms) == old_snippet(text, terms), (query, text)
            compared += 1
    assert compared > 2000


@pytest.mark.corpus
def test_joined_chunk_texts_match_the_old_overlap(
    chunks: list[list[tuple[int, int, str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = [video[i : i + n] for video in chunks for n in (2, 3, 5) for i in range(len(video))]
    new = [join_chunk_texts(run) for run in runs]
    monkeypatch.setattr(hits, "_unique_overlap", old_unique_overlap)
    old = [join_chunk_texts(run) for run in runs]
    assert new == old
    assert sum(text is not None for text in new) > len(new) // 2


@pytest.mark.corpus
def test_the_spelling_prefilter_never_drops_a_word_of_the_corpus(ranges: list[str]) -> None:
    """`_may_match` rests on how `stem` works (a term keeps its word's first letters); if a
    stemmer change breaks that, this fails instead of snippets silently losing bold."""
    spellings = {w for text in ranges if text.isascii() for w in _ASCII_WORD.findall(text)}
    spellings |= STOP_WORDS | FILLER | KEEP | set(IRREGULAR)
    spellings |= {w.upper() for w in IRREGULAR} | {"oing", "ties", "Ties", "o'clock", "M113s"}
    checked = 0
    for raw in spellings:
        term, index_terms = _analyse(raw)
        for t in {term, *index_terms} - {""}:
            assert _may_match(raw, _term_heads(frozenset({t}))), (raw, t)
            checked += 1
    assert checked > 10_000


EDGES = [
    "Don't stop: the driver's GPUs don''t 'run' rock'n'roll o'clock ''quoted''",
    "[Music] music, (laughter) laughing [? music ?] (music) [ Applause ] music",
    "the M113s and M113 at 60fps in the 1990s, 19th gpt4 GPT-4 3b1b 3.5 mp3",
    "Café Ångström naïve façade – 'cafe' ’running’ don’t resume résumé",
    "running runs ran runner RUNNING Running-running run'",
    "  leading spaces and trailing  double  spaces  ",
    "x'y 'x x' '' ' a'b'c abc'd'e",
    "rock'n'roll, roll over; o'clock clock 'clock' clock's clock'",
    "don't won''t t 't' don 'won' can’t",
    "",
]
EDGE_TERMS = [
    {"run", "stop", "dont", "driver", "gpu", "quot", "oclock", "rocknroll"},
    {"music", "laughter", "laugh", "applause"},
    {"m113", "113", "60", "fps", "1990", "19", "gpt", "4", "3", "5", "mp3", "3b1b"},
    {"cafe", "angstrom", "naive", "facade", "run", "dont", "resume"},
    {"run", "runner"},
    {"space", "lead", "trail", "doubl"},
    {"xy", "x", "abc", "abcde", "ab", "abcd"},
    {"a"},
    {"roll", "clock", "rocknroll"},
    {"t", "don", "won", "cant"},
]


@pytest.mark.parametrize("text", EDGES)
@pytest.mark.parametrize("terms", EDGE_TERMS)
def test_spans_match_the_old_code_on_edge_cases(text: str, terms: set[str]) -> None:
    assert match_spans(text, terms) == old_match_spans(text, terms)
    assert snippet(text, terms) == old_snippet(text, terms)
    assert match_spans(text, []) == []


@pytest.mark.parametrize(
    ("text", "chunk"),
    [
        ("a b c", "b c d"),
        ("a b c", "c d"),
        ("the the the", "the the x"),  # more than one overlap: None
        ("a b", "x y"),
        ("ab c", "b c d"),  # "b c" ends "ab c" but not at a word start
        ("a b c", "a b c"),
        ("a b c", " c d"),  # an empty first word
        ("a bc", "bc"),
        ("abc", "abc d"),
    ],
)
def test_overlap_matches_the_old_code(text: str, chunk: str) -> None:
    assert hits._unique_overlap(text, chunk) == old_unique_overlap(text, chunk)


# -- through the engine -----------------------------------------------------------------------
LINES = [
    "Welcome back. Today we're going to talk about memory and how it's stored.",
    "Memory isn't one thing: there's short-term memory and long-term memory.",
    "Don't confuse working memory with the driver's M113 [Music] manual.",
    "Psychologists studied memories, remembering and forgetting for decades.",
    "The hippocampus consolidates memories while we're sleeping at night.",
    "Forgetting curves show memory fading unless it's rehearsed again.",
]


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Harness]:
    harness = Harness(tmp_path / "lib.duckdb")
    yield harness
    harness.close()


def test_hits_match_the_old_snippets_and_the_table_rows(lib: Harness) -> None:
    lib.save(record("aaaaaaaaaaa", "Memory", LINES))
    lib.save(record("bbbbbbbbbbb", "Bread"))
    for query in ['memory "working memory"', "forgetting M113", "sleeping memories", "starter"]:
        first = lib.search(query)
        again = lib.search(query)  # rows now come from the kept ones
        assert first.hits
        assert [h.to_dict() for h in again.hits] == [h.to_dict() for h in first.hits]
        terms = search_terms(query)
        for hit in first.hits:
            assert hit.snippet == old_snippet(hit.text, terms)
        fresh = SearchEngineWithoutRowCache(lib)
        assert [h.to_dict() for h in fresh.search(query).hits] == [h.to_dict() for h in first.hits]
        fresh.close()


def old_satisfies(parsed: ParsedQuery, text: str) -> bool:
    """`query.satisfies` before exclusions had a fast path: every word tokenized."""
    padded = f" {' '.join(phrase_tokens(text))} "
    if not all(f" {' '.join(phrase_tokens(p))} " in padded for p in parsed.phrases):
        return False
    if any(f" {term} " in padded for term in parsed.excluded_terms):
        return False
    return not any(f" {' '.join(phrase_tokens(p))} " in padded for p in parsed.excluded_phrases)


def test_exclusions_answer_as_the_word_by_word_check_on_the_corpus(
    chunks: list[list[tuple[int, int, str]]],
) -> None:
    """Excluding words is decided from a text's distinct spellings where that can be done
    for sure; on every corpus chunk (creator, auto-caption and Whisper text, sound tags,
    non-ASCII), each excluding a word it holds and one it may not, the verdict is the
    word-by-word one."""
    rng = np.random.default_rng(21)
    texts = [text for video in chunks for _, _, text in video]
    words = sorted({w for text in texts[::7] for w in _ASCII_WORD.findall(text)})
    fast = 0
    for text in texts:
        own = _ASCII_WORD.findall(text) or ["none"]
        picks = [own[int(rng.integers(len(own)))], words[int(rng.integers(len(words)))]]
        for query in [f"anything -{picks[0]}", f"anything -{picks[1]}", "x -music -laughter"]:
            parsed = parse_query(query)
            assert satisfies(parsed, text) == old_satisfies(parsed, text), (query, text[:80])
        fast += holds_phrase_term(text, ["x"]) is not None
    assert len(texts) > 3000 and fast > len(texts) // 2  # most texts take the fast path


class SearchEngineWithoutRowCache:
    """A second engine on the same store whose hits read every chunk row from the table."""

    def __init__(self, lib: Harness) -> None:
        self.runner = asyncio.Runner()
        self.engine = SearchEngine(lib.store, None)
        # no memory filled and nothing kept: every row and text comes from the table
        self.engine._hit_rows = ChunkRows(
            lib.store, self.engine.reads, capacity=0, memory=ChunkMemory()
        )

    def search(self, query: str) -> SearchResult:
        return self.runner.run(self.engine.search(SearchRequest(query=query, mode="keyword")))

    def close(self) -> None:
        self.runner.run(self.engine.aclose())
        self.runner.close()


def count_table_reads(lib: Harness, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the chunk reads `lib.engine` makes from the table from now on."""
    calls: list[str] = []
    reads = lib.engine.reads
    for name in ("chunk_rows", "chunk_texts"):
        read = getattr(reads, name)

        def counting(ids: Sequence[int], read: Any = read, name: str = name) -> Any:
            calls.append(name)
            return read(ids)

        monkeypatch.setattr(reads, name, counting)
    return calls


def test_hits_come_from_the_chunk_memory_which_follows_what_the_engine_indexes(
    lib: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib.save(record("aaaaaaaaaaa", "Memory", LINES))
    lib.runner.run(lib.engine.chunk_rows_held())
    calls = count_table_reads(lib, monkeypatch)
    before = lib.search("hippocampus")
    assert "hippocampus" in before.hits[0].text
    phrase = lib.search('"short-term memory" -hippocampus').hits  # checked on held texts
    assert phrase and all("short-term memory" in h.text for h in phrase)
    assert not any("hippocampus" in h.text for h in phrase)
    edited = [line.replace("hippocampus", "hippocampus region") for line in LINES]
    lib.save(record("aaaaaaaaaaa", "Memory", edited))
    after = lib.search("hippocampus")
    assert "hippocampus region" in after.hits[0].text
    assert after.hits[0].start == before.hits[0].start
    assert calls == []  # no search read a chunk from the table
    lib.store.delete_video("youtube:aaaaaaaaaaa")
    assert lib.search("hippocampus").hits == []
    assert len(lib.engine.chunks) == 0


def test_chunks_written_behind_the_engines_back_are_read_from_the_table(
    lib: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib.save(record("aaaaaaaaaaa", "Memory", LINES))
    lib.runner.run(lib.engine.chunk_rows_held())
    other = SearchEngine(lib.store, None)  # another engine re-indexes the video
    edited = [line.replace("hippocampus", "hippocampus region") for line in LINES]
    lib.store.save_video(record("aaaaaaaaaaa", "Memory", edited))
    lib.runner.run(other.index_video("youtube:aaaaaaaaaaa"))
    lib.runner.run(other.aclose())
    calls = count_table_reads(lib, monkeypatch)
    after = lib.search("hippocampus")
    assert "hippocampus region" in after.hits[0].text
    assert "chunk_rows" in calls
    read = len(calls)
    lib.search("hippocampus")
    assert len(calls) == read  # rows read from the table are kept until the next write
    lib.store.delete_video("youtube:aaaaaaaaaaa")
    assert lib.search("hippocampus").hits == []


def test_the_sliced_product_is_bitwise_the_single_product() -> None:
    """Cutting the product across threads must not change a score's bits: vector hits are
    compared across runs and engines, so a ranking may not depend on the core count."""
    rng = np.random.default_rng(18)
    unit = rng.standard_normal((PARALLEL_ROWS * 2 + 77, 384)).astype(np.float32)
    codes, scales = _quantised(unit / np.linalg.norm(unit, axis=1, keepdims=True))
    query = rng.standard_normal(384).astype(np.float32)
    single = np.einsum("ij,j->i", codes.astype(np.float32), query) * scales
    assert np.array_equal(_similarities(codes, scales, query), single)
