"""The answer without a chat model: the caption excerpts that best answer the question.

When no chat model is available (none installed, all failing, or the user chose none) the
library can still point at the right moments. The excerpts are the speakers' own words,
never paraphrased, each ending with its `[n]` and time, under a first line that says plainly
no model wrote them, so nobody mistakes a quote for a generated answer. (Why no model did,
and how to get one, travels beside the answer in `AskMeta`: each face says it its own way.)

Shared words alone pick the wrong lines: a question is phrased in the asker's words, and
the line that shares most of them is often a passing mention, while the answer says it
differently. So every sentence of the sources is scored three ways together: its
embedding's similarity to the question's (the search engine's own embedder), the share of
the question's words it holds (rare words weigh more), and the search rank of the passage
it came from (hybrid search already found the right passage for most questions). The best
sentence seeds an excerpt, which takes in the neighbouring sentences that belong with it
(as relevant, or on the same point), cut on sentence ends, up to `EXCERPT_CHARS`.
Near-duplicates are dropped, excerpts well below the best are left out, and over several
videos each video with a strong excerpt is quoted once before any is quoted twice.

The sources are numbered as the answer cites them: the first bullet cites [1], the next new
source [2], and so on; each bullet has its own citation, narrowed to the segments its quote
lies on, and an excerpt that starts or ends inside a sentence shows `…` there.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..domain.videos import Segment
from ..models.types import EmbeddingModel
from ..search.query import parse_query
from ..timecode import clock
from .citations import Citation, make_citation
from .events import with_ellipses
from .excerpts import Excerpt, Sentence, excerpt_text, segments_of, split_sentences
from .markers import strip_citations
from .matching import quote_cuts, quote_window, terms, weight
from .retrieval import RankedSpan
from .sources import Source

log = logging.getLogger(__name__)

Vector = npt.NDArray[np.float32]

HEADER = (
    "Extractive answer (no chat model wrote this): the passages that best match your question, "
    "quoted from the videos."
)
NOT_COVERED = "The library's videos do not seem to cover this."
EXCERPT_CHARS = 420
"""An excerpt grows with neighbouring sentences up to about this many characters."""

# How a sentence is scored: similarity to the question (cosine of all-MiniLM-L6-v2 unit
# vectors; W_WINDOW of it from the sentence with its neighbours, the rest from the sentence
# alone), the weighted share of the question's words it holds, and its passage's search
# rank as RANK_K / (RANK_K + rank). Tuned on tests/eval/ask_questions.json (33 questions):
# the words and rank weights matter most; without the context vectors the first excerpt
# is near the answer for 0.70 of the questions instead of 0.76.
W_SIMILARITY = 1.0
W_WORDS = 1.0
W_RANK = 0.5
RANK_K = 4.0
W_WINDOW = 0.7
MIN_SIMILARITY = 0.3
"""Without a shared word, a sentence this similar to the question can still answer it;
below it (and sharing nothing) the videos do not cover the question."""
FULL_WORDS = 10
"""A sentence of fewer words seeds an excerpt only with a proportionally lower score: a
two-word line ("Who knows.") embeds close to almost anything."""
BELONG = 0.75
"""A neighbour joins an excerpt when it scores at least this share of the seed's..."""
SAME_POINT = 0.5
"""...or when it is this similar to the seed sentence itself (one point, said over two
sentences) and scores at least `SAME_POINT_SCORE` of the seed's."""
SAME_POINT_SCORE = 0.5
DUPLICATE_WORDS = 0.6
DUPLICATE_SIMILARITY = 0.9
MIN_POINTS = 2
KEEP = 0.85
"""The first `MIN_POINTS` excerpts are kept down to this share of the best one's score..."""
KEEP_MORE = 0.92
"""...and more, up to `max_points`, only down to this share."""
STRONG = 0.7
"""Over several videos, a video whose best excerpt scores this share of the best is quoted
before any video is quoted a second time."""
EMBED_BATCH = 32
"""Sentences per embedder call, so a search's query embedding never queues behind all."""


@dataclass(slots=True)
class ExtractiveAnswer:
    """Markdown text (a header, then one bullet per excerpt), one citation per bullet, and
    every source renumbered: the cited ones first, as the text cites them."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Embedded:
    """The question's vector and one row per sentence of each source (as `split_sentences`
    cuts it), from the search engine's embedder."""

    question: Vector
    sentences: list[npt.NDArray[np.float32]]
    windows: list[npt.NDArray[np.float32]] | None = None


@dataclass(slots=True)
class _Scored:
    """The score of every sentence of every source, and what decided it."""

    sentences: list[list[Sentence]]
    score: list[list[float]]
    seed: list[list[float]]
    eligible: list[list[bool]]
    words: list[list[frozenset[str]]]
    vectors: list[npt.NDArray[np.float32]] | None


@dataclass(frozen=True, slots=True)
class _Candidate:
    excerpt: Excerpt
    score: float
    video_id: str


async def ranked_extractive_answer(
    question: str,
    sources: Sequence[Source],
    embedder: EmbeddingModel | None,
    hits: Sequence[RankedSpan] = (),
    *,
    max_points: int = 5,
) -> ExtractiveAnswer:
    """`extractive_answer` with every sentence embedded by `embedder` first (off the event
    loop: the embedder runs on its own threads). Should the embedder fail, the answer is
    ranked by words and search rank alone, as a keyword-only search would be."""
    embedded = None
    if embedder is not None and sources:
        try:
            embedded = await embed_sentences(embedder, question, sources)
        except Exception as exc:  # a failed embedder still leaves an answer from the words
            log.warning("extractive answer ranked without the embedder: %s", exc)
    return extractive_answer(question, sources, max_points=max_points, hits=hits, embedded=embedded)


async def embed_sentences(
    embedder: EmbeddingModel, question: str, sources: Sequence[Source], *, windows: bool = True
) -> Embedded:
    """The question embedded as the search engine embeds queries, every sentence alone,
    and every sentence with its two neighbours (its context: "and that general approach is
    called memoization" answers a question only together with the line before it).

    Without `windows` a sentence's context is the mean of its own and its neighbours'
    vectors instead: a quarter of the embedding work (a window is three sentences long),
    for a model's excerpts that must be chosen before its prefill can start."""
    per_source = [split_sentences(source) for source in sources]
    texts: list[str] = []
    for source, sentences in zip(sources, per_source, strict=True):
        texts.extend(s.text for s in sentences)
        if windows:
            texts.extend(_window(source, sentences, j) for j in range(len(sentences)))
    query = parse_query(question).text_for_embedding or question
    rows: list[Vector] = [np.asarray((await embedder.embed([query]))[0], dtype=np.float32)]
    for i in range(0, len(texts), EMBED_BATCH):
        rows.extend(np.asarray(await embedder.embed(texts[i : i + EMBED_BATCH]), np.float32))
    matrix = np.vstack(rows)
    alone: list[npt.NDArray[np.float32]] = []
    around: list[npt.NDArray[np.float32]] = []
    at = 1
    for sentences in per_source:
        n = len(sentences)
        alone.append(matrix[at : at + n])
        if windows:
            around.append(matrix[at + n : at + 2 * n])
            at += 2 * n
        else:
            around.append(_neighbour_means(alone[-1]))
            at += n
    return Embedded(matrix[0], alone, around)


def _neighbour_means(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Each row averaged with the rows either side of it, renormalised: a window's vector
    without embedding the window."""
    if len(vectors) == 0:
        return vectors
    summed = vectors.copy()
    summed[1:] += vectors[:-1]
    summed[:-1] += vectors[1:]
    norms = np.linalg.norm(summed, axis=1, keepdims=True)
    return np.asarray(summed / np.maximum(norms, 1e-12), dtype=np.float32)


def _window(source: Source, sentences: list[Sentence], j: int) -> str:
    """Sentence `j` with the sentences either side of it, as the source's text has them."""
    first, last = sentences[max(0, j - 1)], sentences[min(len(sentences) - 1, j + 1)]
    return source.text[first.start : last.end]


def extractive_answer(
    question: str,
    sources: Sequence[Source],
    *,
    max_points: int = 5,
    hits: Sequence[RankedSpan] = (),
    embedded: Embedded | None = None,
) -> ExtractiveAnswer:
    """Up to `max_points` excerpts, best first (see the module's doc). Without `embedded`
    sentences are scored by shared words and search rank only."""
    if max_points < 1:
        raise ValueError("max_points must be at least 1")
    query = terms(question)
    scored = _score(question, query, sources, hits, embedded)
    chosen = _choose(sources, scored, max_points)
    if not chosen:
        return ExtractiveAnswer(NOT_COVERED, [], list(sources))
    renumbered = _numbered_by_first_use(sources, [sources[c.excerpt.source] for c in chosen])
    lines = [HEADER, ""]
    citations: list[Citation] = []
    for candidate in chosen:
        excerpt = candidate.excerpt
        original = sources[excerpt.source]
        source = renumbered[id(original)]
        sentences = scored.sentences[excerpt.source]
        raw = excerpt_text(original, sentences, excerpt)
        shown = with_ellipses(strip_citations(raw).strip(), *quote_cuts(raw, original.text))
        segments = segments_of(original, sentences, excerpt, None)
        lines.append(f"- “{shown}” [{source.n}] ({clock(segments[0].start)})")
        citations.append(_citation(source, original, sentences, excerpt, raw, query, candidate))
    ordered = sorted(renumbered.values(), key=lambda s: s.n)
    return ExtractiveAnswer("\n".join(lines), citations, ordered)


def best_excerpts(
    question: str,
    sources: Sequence[Source],
    *,
    max_points: int,
    hits: Sequence[RankedSpan] = (),
    embedded: Embedded | None = None,
) -> list[tuple[Source, list[Segment], float]]:
    """The excerpts an extractive answer would quote, best first, each as its source, the
    segments it lies on and its score: what a local model reads instead of whole passages
    (see `focus`)."""
    scored = _score(question, terms(question), sources, hits, embedded)
    return [
        (
            sources[c.excerpt.source],
            segments_of(
                sources[c.excerpt.source], scored.sentences[c.excerpt.source], c.excerpt, None
            ),
            c.score,
        )
        for c in _choose(sources, scored, max_points)
    ]


def _score(
    question: str,
    query: frozenset[str],
    sources: Sequence[Source],
    hits: Sequence[RankedSpan],
    embedded: Embedded | None,
) -> _Scored:
    sentences = [split_sentences(s) for s in sources]
    if embedded is not None and [len(v) for v in embedded.sentences] != [len(s) for s in sentences]:
        embedded = None  # not these sentences: never pair a vector with the wrong line
    words = [[terms(s.text) for s in per] for per in sentences]
    df: Counter[str] = Counter()
    for per in words:
        for found in per:
            df.update(found & query)
    pool = sum(len(per) for per in words)
    idf = {t: weight(t) * math.log(1.0 + pool / (1.0 + df[t])) for t in query}
    total = sum(idf.values())
    out = _Scored(sentences, [], [], [], words, embedded.sentences if embedded else None)
    for i, source in enumerate(sources):
        similarity = (
            embedded.sentences[i] @ embedded.question
            if embedded is not None and len(sentences[i])
            else np.zeros(len(sentences[i]), np.float32)
        )
        if embedded is not None and embedded.windows is not None and len(sentences[i]):
            similarity = (1 - W_WINDOW) * similarity + W_WINDOW * (
                embedded.windows[i] @ embedded.question
            )
        scores, seeds, eligible = [], [], []
        for j, sentence in enumerate(sentences[i]):
            shared = query & words[i][j]
            share = sum(idf[t] for t in shared) / total if total else 0.0
            rank = _rank(source, sentence, hits)
            prior = RANK_K / (RANK_K + rank) if rank is not None else 0.0
            cos = float(similarity[j])
            value = W_SIMILARITY * cos + W_WORDS * share + W_RANK * prior
            n_words = len(sentence.text.split())
            scores.append(value)
            seeds.append(value * min(1.0, n_words / FULL_WORDS))
            ok = bool(shared) or (embedded is not None and cos >= MIN_SIMILARITY)
            eligible.append(ok and bool(strip_citations(sentence.text).strip()))
        out.score.append(scores)
        out.seed.append(seeds)
        out.eligible.append(eligible)
    return out


def _rank(source: Source, sentence: Sentence, hits: Sequence[RankedSpan]) -> int | None:
    """The best search rank of a hit the sentence lies in (None: none does)."""
    start = source.segments[sentence.first].start
    end = source.segments[sentence.last].end
    ranks = [
        h.rank for h in hits if h.video_id == source.video_id and h.start < end and h.end > start
    ]
    return min(ranks) if ranks else None


def _choose(sources: Sequence[Source], scored: _Scored, max_points: int) -> list[_Candidate]:
    """The excerpts to quote, in the order to quote them."""
    seeds = sorted(
        (
            (scored.seed[i][j], i, j)
            for i in range(len(sources))
            for j in range(len(scored.sentences[i]))
            if scored.eligible[i][j]
        ),
        reverse=True,
    )
    used: set[tuple[int, int]] = set()
    built: list[_Candidate] = []
    for value, i, j in seeds:
        if (i, j) in used:
            continue
        if len(built) >= 3 * max_points:
            break
        excerpt = _grow(scored, i, j, used)
        if any(_duplicate(scored, excerpt, c.excerpt) for c in built):
            used.update((i, k) for k in range(excerpt.first, excerpt.last + 1))
            continue
        used.update((i, k) for k in range(excerpt.first, excerpt.last + 1))
        built.append(_Candidate(excerpt, value, sources[i].video_id))
    if not built:
        return []
    best = built[0].score
    videos = list(dict.fromkeys(c.video_id for c in built))
    order = built
    if len(videos) > 1:
        strong: dict[str, _Candidate] = {}
        for c in built:
            if c.score >= STRONG * best:
                strong.setdefault(c.video_id, c)
        first = list(strong.values())
        order = first + [c for c in built if c not in first]
    kept: list[_Candidate] = []
    for c in order:
        floor = KEEP if len(kept) < MIN_POINTS else KEEP_MORE
        if c.score >= floor * best and len(kept) < max_points:
            kept.append(c)
    return kept


def _grow(scored: _Scored, i: int, j: int, used: set[tuple[int, int]]) -> Excerpt:
    """The excerpt seeded by sentence `j` of source `i`: it takes in the neighbours that
    belong with it, the better one first, while it stays within `EXCERPT_CHARS`."""
    sentences = scored.sentences[i]
    first = last = j
    length = len(sentences[j].text)
    seed = scored.score[i][j]
    while True:
        options = []
        for k in (first - 1, last + 1):
            if not 0 <= k < len(sentences) or (i, k) in used:
                continue
            if length + 1 + len(sentences[k].text) > EXCERPT_CHARS:
                continue
            if _belongs(scored, i, j, k, seed):
                options.append((scored.score[i][k], k))
        if not options:
            return Excerpt(i, first, last)
        _, k = max(options)
        length += 1 + len(sentences[k].text)
        first, last = min(first, k), max(last, k)


def _belongs(scored: _Scored, i: int, seed_index: int, k: int, seed: float) -> bool:
    value = scored.score[i][k]
    if value >= BELONG * seed:
        return True
    if scored.vectors is None or value < SAME_POINT_SCORE * seed:
        return False
    vectors = scored.vectors[i]
    return float(vectors[k] @ vectors[seed_index]) >= SAME_POINT


def _duplicate(scored: _Scored, a: Excerpt, b: Excerpt) -> bool:
    """Two excerpts that say the same thing (a speaker repeating a line, or a recap)."""
    words_a = frozenset().union(*scored.words[a.source][a.first : a.last + 1])
    words_b = frozenset().union(*scored.words[b.source][b.first : b.last + 1])
    if words_a and words_b and len(words_a & words_b) / len(words_a | words_b) >= DUPLICATE_WORDS:
        return True
    if scored.vectors is None:
        return False
    va = scored.vectors[a.source][a.first : a.last + 1].mean(axis=0)
    vb = scored.vectors[b.source][b.first : b.last + 1].mean(axis=0)
    norm = float(np.linalg.norm(va) * np.linalg.norm(vb))
    return bool(norm) and float(va @ vb) / norm >= DUPLICATE_SIMILARITY


def _numbered_by_first_use(sources: Sequence[Source], cited: Sequence[Source]) -> dict[int, Source]:
    """Every source (by identity) with its new number: cited ones 1, 2, ... in the order the
    answer first cites them, then the others in their old order."""
    order = list({id(s): s for s in [*cited, *sources]}.values())
    return {id(s): dataclasses.replace(s, n=n) for n, s in enumerate(order, start=1)}


def _citation(
    source: Source,
    original: Source,
    sentences: list[Sentence],
    excerpt: Excerpt,
    raw: str,
    query: frozenset[str],
    candidate: _Candidate,
) -> Citation:
    """The excerpt's citation: a verbatim quote of it (the part holding most of the
    question's words, when it is long), timed to the segments that quote lies on."""
    quote = quote_window(raw, query)
    at = raw.find(quote)
    within = (at, at + len(quote)) if at >= 0 else None
    segments = segments_of(original, sentences, excerpt, within)
    return make_citation(
        source, segments[0].start, segments[-1].end, quote, round(candidate.score, 4)
    )
