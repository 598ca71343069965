"""The brief without a chat model: the best passages of every video, grouped into topics.

A fresh install has no model that can write, and a brief must still be useful and honest:
for the question, hybrid search finds the best passages of each video; the passages are
grouped into topics by embedding similarity across videos, and a topic met in two or more
distinct videos is marked as shared. Every quote is transcript text, so it verifies by
construction (it is still checked, which also snaps its times). The build reports one step
a video as it quotes that video's passages, so a large scope shows it moving.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..ask.matching import quote_window, terms
from ..search.request import SearchHit, SearchRequest, SearchResult
from .events import BriefCitation, BriefPoint, BriefStep, BriefTopic
from .evidence import Evidence, kind_of, topic_key
from .sources import BriefSource
from .topic_names import TermStats, key_terms, topic_name
from .verify import MIN_QUOTE_WORDS, THRESHOLD, normalise

#: Passages read in all: the best of the whole scope, shared out so that no video takes more
#: than its part (and every video may give at least `MIN_PER_VIDEO`).
PASSAGES_PER_BRIEF = 16
MIN_PER_VIDEO = 2
#: Candidates read per video, as a multiple of what a video may give.
CANDIDATE_FACTOR = 3
#: Weight of relevance against novelty when choosing the next passage (MMR's lambda).
MMR_RELEVANCE = 0.5
#: The scope's most telling terms searched besides the question, and the hits each brings.
KEY_TERMS = 8
TERM_HITS = 12
#: Cosine similarity above which two passages are one topic (all-MiniLM-L6-v2 vectors).
SAME_TOPIC = 0.6
#: A passage is kept when its similarity to the question is at least this share of the best
#: passage's (and above `MIN_RELEVANCE`): "how does memory work" must not bring in every
#: passage where someone says "work".
RELATIVE_RELEVANCE = 0.5
MIN_RELEVANCE = 0.2
QUOTE_CHARS = 280
_SENTENCE = re.compile(r"[^.!?]+[.!?]+[\"'”’)]*|[^.!?]+$")

Search = Callable[[SearchRequest], Awaitable[SearchResult]]
Embed = Callable[[list[str]], Awaitable[np.ndarray]]
#: A search hit as its quote is remembered: (video id, start, end, text).
HitKey = tuple[str, float, float, str]
#: A hit's best sentences and when they are said (None: too short to quote).
Quoted = dict[HitKey, tuple[str, float | None]]


@dataclass(frozen=True, slots=True)
class Passage:
    citation: BriefCitation
    text: str
    score: float
    chapter: str | None = None


async def extractive_topics(
    question: str,
    sources: Sequence[BriefSource],
    evidence: Evidence,
    search: Search,
    embed: Embed | None,
) -> AsyncGenerator[BriefStep | list[BriefTopic], None]:
    """Progress steps (`extract`, one a video as its passages are quoted, then one for the
    grouping), then the topics of passages last (best first; empty when no video says
    anything about it).

    The passages are the best hybrid-search ranges of the whole scope (a few per video, so
    one long video cannot fill the brief), each quoted as its best whole sentences. The
    pure computation (term statistics over every segment, quoting each video's hits,
    choosing, verifying and grouping passages) runs in worker threads: on a large
    collection it takes long enough to stall the event loop the app's window and the
    owner's clients share. Quoting is done a video at a time, with a step between videos.
    """
    query = terms(question)
    by_id = {s.video_id: s for s in sources}
    request = SearchRequest(question, mode="hybrid", limit=100, video_ids=tuple(by_id))
    per_video = max(MIN_PER_VIDEO, math.ceil(PASSAGES_PER_BRIEF / max(1, len(sources))))
    stats, telling = await asyncio.to_thread(_scope_terms, sources, question)
    hits = list((await search(request)).hits)
    # what the videos keep coming back to, so that passages the question's words miss
    # ("cost function" for "how does it learn") are candidates too; relevance still decides
    for term in telling:
        found = await search(
            SearchRequest(term, mode="hybrid", limit=TERM_HITS, video_ids=tuple(by_id))
        )
        hits.extend(found.hits)
    cap = CANDIDATE_FACTOR * per_video
    of_video: dict[str, list[SearchHit]] = {}
    for hit in hits:
        of_video.setdefault(hit.video_id, []).append(hit)
    quoted: Quoted = {}
    videos = len(sources)
    for n, source in enumerate(sources, start=1):
        yield BriefStep("extract", n - 1, videos, source.title, videos=videos, video=n)
        own = of_video.get(source.video_id, [])
        quoted.update(await asyncio.to_thread(_quote_video, own, source, query, cap))
    yield BriefStep("extract", videos, videos, "grouping the passages", videos=videos)
    candidates = await asyncio.to_thread(_candidates, hits, by_id, query, cap, quoted)
    if not candidates:
        yield []
        return
    vectors = await embed([question, *(c.quote for c in candidates)]) if embed else None
    yield await asyncio.to_thread(
        _topics_of, question, candidates, vectors, per_video, stats, evidence
    )


def _scope_terms(sources: Sequence[BriefSource], question: str) -> tuple[TermStats, list[str]]:
    """The scope's term statistics and its most telling terms besides the question's."""
    stats = TermStats(s.text for source in sources for s in source.index.segments)
    return stats, key_terms(stats, [question], KEY_TERMS)


def _topics_of(
    question: str,
    candidates: Sequence[_Candidate],
    vectors: np.ndarray | None,
    per_video: int,
    stats: TermStats,
    evidence: Evidence,
) -> list[BriefTopic]:
    """The chosen passages, verified and grouped into named topics (without `vectors`, one
    topic a passage, in search order)."""
    names: set[str] = set()
    if vectors is None:
        chosen = _capped(candidates, range(len(candidates)), per_video)
        passages, _ = _passages(candidates, chosen, evidence)
        return [_topic([p], question, stats, names) for p in passages]
    relevance = vectors[1:] @ vectors[0]
    floor = max(MIN_RELEVANCE, RELATIVE_RELEVANCE * float(relevance.max()))
    chosen = _diverse(candidates, vectors[1:], relevance, floor, per_video)
    passages, kept = _passages(candidates, chosen, evidence)
    if not passages:
        return []
    groups = _group(passages, vectors[1:][kept])
    return _merge_same_names([_topic(group, question, stats, names) for group in groups])


@dataclass(frozen=True, slots=True)
class _Candidate:
    source: BriefSource
    quote: str
    moment: float
    score: float
    chapter: str | None


def _hit_key(hit: SearchHit) -> HitKey:
    return (hit.video_id, hit.start, hit.end, hit.text)


def _quote_of(
    hit: SearchHit, source: BriefSource, query: frozenset[str]
) -> tuple[str, float | None]:
    """A hit's best sentences and when they are said (None: too short to quote)."""
    quote = best_sentences(hit.text, query)
    return quote, _moment(source, quote, hit.start, hit.end)


def _quote_video(
    hits: Sequence[SearchHit], source: BriefSource, query: frozenset[str], per_video: int
) -> Quoted:
    """One video's hits quoted (best sentences, and when they are said), in search order,
    until `per_video` distinct quotes: the ones `_candidates` will pick from it."""
    out: Quoted = {}
    distinct: set[str] = set()
    for hit in hits:
        key = _hit_key(hit)
        if key in out:
            continue
        quote, moment = out[key] = _quote_of(hit, source, query)
        if moment is not None:
            distinct.add(quote)
            if len(distinct) >= per_video:
                break
    return out


def _candidates(
    hits: Sequence[SearchHit],
    by_id: dict[str, BriefSource],
    query: frozenset[str],
    per_video: int,
    quoted: Quoted | None = None,
) -> list[_Candidate]:
    """Each hit's best sentences with when they are said, in search order, a few a video.

    `quoted` holds the hits already quoted video by video (`_quote_video`); a hit it lacks
    (one two videos' quotes share pushed further) is quoted here."""
    out: list[_Candidate] = []
    seen: set[str] = set()
    count: Counter[str] = Counter()
    for hit in hits:
        source = by_id.get(hit.video_id)
        if source is None or count[hit.video_id] >= per_video:
            continue
        known = quoted.get(_hit_key(hit)) if quoted is not None else None
        quote, moment = known if known is not None else _quote_of(hit, source, query)
        if moment is None or quote in seen:
            continue  # too short to quote (a passage of "Yes."), not a claim left out
        seen.add(quote)
        count[hit.video_id] += 1
        out.append(_Candidate(source, quote, moment, hit.score, hit.chapter))
    return out


def _capped(candidates: Sequence[_Candidate], order: Iterable[int], per_video: int) -> list[int]:
    count: Counter[str] = Counter()
    chosen: list[int] = []
    for i in order:
        vid = candidates[i].source.video_id
        if count[vid] < per_video:
            count[vid] += 1
            chosen.append(i)
        if len(chosen) == PASSAGES_PER_BRIEF:
            break
    return chosen


def _diverse(
    candidates: Sequence[_Candidate],
    vectors: np.ndarray,
    relevance: np.ndarray,
    floor: float,
    per_video: int,
) -> list[int]:
    """Maximal marginal relevance: each next passage is the one most relevant to the
    question and least like those already chosen, so sixteen passages make sixteen points
    rather than one point said sixteen ways."""
    open_ = [i for i in range(len(candidates)) if relevance[i] >= floor]
    count: Counter[str] = Counter()
    chosen: list[int] = []
    while open_ and len(chosen) < PASSAGES_PER_BRIEF:

        def value(i: int) -> float:
            similar = max((float(vectors[i] @ vectors[j]) for j in chosen), default=0.0)
            return MMR_RELEVANCE * float(relevance[i]) - (1 - MMR_RELEVANCE) * similar

        best = max(open_, key=value)
        open_.remove(best)
        vid = candidates[best].source.video_id
        if count[vid] >= per_video:
            continue
        count[vid] += 1
        chosen.append(best)
    return chosen


def _passages(
    candidates: Sequence[_Candidate], chosen: Sequence[int], evidence: Evidence
) -> tuple[list[Passage], list[int]]:
    """The chosen candidates as cited passages (each quote checked once more, which also
    snaps its times), with the indexes of those that passed."""
    passages: list[Passage] = []
    kept: list[int] = []
    for i in chosen:
        c = candidates[i]
        citation = evidence.cite({"source": c.source.n, "time": c.moment, "quote": c.quote})
        if citation is not None:
            passages.append(Passage(citation, c.quote, c.score, c.chapter))
            kept.append(i)
    return passages, kept


def _moment(source: BriefSource, quote: str, start: float, end: float) -> float | None:
    """When in the passage [start, end] its quote is said: a passage may run for minutes,
    and a quote is checked within seconds of the time it is cited at."""
    words = normalise(quote)
    if len(words) < MIN_QUOTE_WORDS:
        return None
    index = source.index
    first, last = index.word_range(start, end)
    score, at, _ = index.best_span(words, first, last)
    if at < 0 or score < THRESHOLD:
        return None
    return index.segments[index.segment_of[at]].start


def _merge_same_names(topics: list[BriefTopic]) -> list[BriefTopic]:
    """Topics whose names differ only in wording ("How Memory is Stored", "How Memories are
    Stored") are one: their passages become one point, shared if from 2+ videos."""
    merged: dict[str, BriefTopic] = {}
    for topic in topics:
        key = topic_key(topic.name)
        if key not in merged:
            merged[key] = topic
            continue
        first = merged[key]
        support = [*first.points[0].support, *topic.points[0].support]
        lead = first.points[0].text
        merged[key] = BriefTopic(first.name, [BriefPoint(lead, kind_of(support, []), support)])
    return list(merged.values())


def best_sentences(text: str, query: frozenset[str], limit: int = QUOTE_CHARS) -> str:
    """The whole sentences of `text` around the one sharing most words with the question,
    within `limit` characters (a cut inside a sentence only when one sentence is longer)."""
    sentences = [m.group(0).strip() for m in _SENTENCE.finditer(" ".join(text.split()))]
    sentences = [s for s in sentences if s]
    if not sentences:
        return quote_window(text, query, limit=limit)
    scores = [len(terms(s) & query) for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (scores[i], -i))
    if len(sentences[best]) > limit:
        return quote_window(sentences[best], query, limit=limit)
    first = last = best
    size = len(sentences[best])
    while True:
        grew = False
        if last + 1 < len(sentences) and size + 1 + len(sentences[last + 1]) <= limit:
            last += 1
            size += 1 + len(sentences[last])
            grew = True
        if first > 0 and size + 1 + len(sentences[first - 1]) <= limit and scores[first - 1]:
            first -= 1
            size += 1 + len(sentences[first])
            grew = True
        if not grew:
            break
    return " ".join(sentences[first : last + 1])


def _group(passages: list[Passage], vectors: np.ndarray) -> list[list[Passage]]:
    """Greedy grouping in score order: a passage joins the group it is closest to."""
    groups: list[list[int]] = []
    centroids: list[np.ndarray] = []
    for i, vector in enumerate(vectors):
        scores = [float(vector @ c / max(np.linalg.norm(c), 1e-9)) for c in centroids]
        best = int(np.argmax(scores)) if scores else -1
        if best >= 0 and scores[best] >= SAME_TOPIC:
            groups[best].append(i)
            centroids[best] = centroids[best] + vector
        else:
            groups.append([i])
            centroids.append(vector.copy())
    return [[passages[i] for i in group] for group in groups]


def _topic(group: list[Passage], question: str, stats: TermStats, taken: set[str]) -> BriefTopic:
    """A topic named by its lead passage's chapter, else by the terms its passages are
    about (see `topic_names`)."""
    chapters = [p.chapter for p in group if p.chapter]
    if chapters:
        name = Counter(chapters).most_common(1)[0][0]
    else:
        name = topic_name([p.text for p in group], [question], stats, taken=taken)
        taken.update(name.split(", "))
        name = (name[:1].upper() + name[1:]) or "Passages"
    support = [p.citation for p in group]
    lead = group[0]
    point = BriefPoint(f"“{lead.text}”", kind_of(support, []), support)
    return BriefTopic(name, [point])
