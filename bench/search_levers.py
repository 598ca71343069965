"""Issue 18's search-quality levers, each measured on the eval's dev and held-out splits.

Builds the eval library once (tests/eval/run_eval.py: the transcripts the queries use, read
in place from ../shared/corpus, indexed with the shipped embedder), then opens one engine
per variant over the same store and runs every query in keyword, vector and hybrid mode.
Each variant is the app's `SearchEngine` with one thing changed, defined here only:

- ASR misspelling expansion (lever 1): a query term with no or few postings also looks
  for index terms that look or sound like it, scored as BM25 terms at half weight:
  `asr-trigram` (padded character trigrams, Jaccard >= 0.5), `asr-phonetic` (a
  consonant-skeleton key, metaphone-like: b/p, d/t, g/k/c, f/v/ph, s/z merged, vowels
  dropped), `asr-edit` (Damerau-Levenshtein distance <= 1 for 5-7 letters, <= 2 above).
- Query-dependent fusion (lever 2): `fuse-coverage` weights the keyword side's RRF term by
  how much of the query's IDF mass its best chunk holds (a query whose rare words the
  words side cannot find leans on the vectors; a query fully matched keeps equal weight);
  `fuse-chunk-coverage` does it per chunk (each keyword hit weighted by its own coverage;
  it won on dev and is the app's hybrid fusion since, so `base` here is plain RRF);
  `depth-N` cuts both sides to N candidates before fusing (50 today).
- Title and chapter as a field (lever 2): `title-field` adds the words of the video title
  and the chunk's chapter title to each chunk's keyword terms.

Nothing is tuned here: every threshold and weight above was fixed before the first run.
A lever is worth keeping only if it improves the dev split and does not hurt the
held-out one (which is reported, never selected on).

    .venv/bin/python bench/search_levers.py [--levers asr,fusion,field] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.eval.check_queries import default_corpus  # noqa: E402
from tests.eval.metrics import evaluate  # noqa: E402
from tests.eval.run_eval import default_embedder, eval_library, search_all  # noqa: E402
from v2c_desktop.core.search import engine as engine_module  # noqa: E402
from v2c_desktop.core.search.engine import SearchEngine  # noqa: E402
from v2c_desktop.core.search.fusion import Fused, FusionSettings  # noqa: E402
from v2c_desktop.core.search.keyword_memory import KeywordMemory  # noqa: E402
from v2c_desktop.core.search.query import ParsedQuery  # noqa: E402
from v2c_desktop.core.search.text_tokens import tokenize  # noqa: E402
from v2c_desktop.core.store.bm25 import K1, B  # noqa: E402

MODES = ("keyword", "vector", "hybrid")
EXPANSION_WEIGHT = 0.5
RARE_DF = 2  # "few postings": a query term found in at most this many chunks
ASR_QUERIES = ("q61", "q62", "q63", "q83", "q86")  # notes say the transcript misspells them


# -- lever 1: similar index terms -------------------------------------------------------------


def trigrams(term: str) -> set[str]:
    padded = f"#{term}#"
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


_DIGRAPHS = (("ph", "f"), ("ck", "k"), ("sh", "x"), ("ch", "x"), ("th", "0"), ("qu", "kw"))
_SOUNDS = str.maketrans("bpdtgkqvfzjx", "ppttkkkffsjx")


@cache
def phonetic_key(term: str) -> str:
    """A consonant skeleton: similar-sounding consonants merged, vowels dropped (an initial
    vowel kept as "a"), repeats collapsed. "anthrobots" and "anthropods" share one."""
    word = "".join(ch for ch in term.lower() if ch.isalpha())
    if not word:
        return ""
    for a, b in _DIGRAPHS:
        word = word.replace(a, b)
    word = "".join(
        "s" if ch == "c" and nxt in "eiy" else "k" if ch == "c" else ch
        for ch, nxt in zip(word, word[1:] + " ", strict=True)
    ).translate(_SOUNDS)
    out = "a" if word[0] in "aeiouy" else ""
    for ch in word:
        if ch in "aeiouyhw" or (out and out[-1] == ch):
            continue
        out += ch
    return out


def damerau(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance, stopping early once above `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


@dataclass
class Vocabulary:
    """The index's live terms with their document frequencies, and lookups by shape."""

    df: dict[str, int]
    by_trigram: dict[str, list[str]] = field(default_factory=dict)
    by_key: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, memory: KeywordMemory) -> Vocabulary:
        snap = memory._snap
        assert snap is not None
        df = {t: len(memory._postings(snap, t)[0]) for t in memory._vocab}
        vocab = cls({t: n for t, n in df.items() if n})
        for term in vocab.df:
            if len(term) < 4 or not term.isalpha():
                continue
            for gram in trigrams(term):
                vocab.by_trigram.setdefault(gram, []).append(term)
            vocab.by_key.setdefault(phonetic_key(term), []).append(term)
        return vocab

    def similar(self, term: str, method: str) -> list[tuple[str, float]]:
        """Index terms like `term` by `method`, with a similarity in (0, 1]."""
        if len(term) < 4 or not term.isalpha():
            return []
        if method == "phonetic":
            key = phonetic_key(term)
            return [(t, 1.0) for t in self.by_key.get(key, []) if t != term and len(key) >= 2]
        grams = trigrams(term)
        shared = Counter(t for g in grams for t in self.by_trigram.get(g, ()))
        out: list[tuple[str, float]] = []
        for other, n in shared.items():
            if other == term:
                continue
            jaccard = n / (len(grams) + len(trigrams(other)) - n)
            if method == "trigram" and jaccard >= 0.5:
                out.append((other, jaccard))
            elif method == "edit" and len(term) >= 5 and jaccard >= 0.2:
                limit = 1 if len(term) <= 7 else 2
                d = damerau(term, other, limit)
                if d <= limit:
                    out.append((other, 1.0 - d / (limit + 1)))
        return sorted(out, key=lambda x: -x[1])[:3]


# -- weighted BM25 with coverage --------------------------------------------------------------


def weighted_top(
    memory: KeywordMemory,
    weights: Mapping[str, tuple[str, float]],
    query_terms: Sequence[str],
    *,
    limit: int,
    videos: Sequence[str] | None,
) -> tuple[list[tuple[int, float]], dict[int, float]]:
    """`KeywordMemory.top` with a weight per term (`term -> (query term it stands for,
    weight)`), and each found chunk's coverage: the share of the query terms' IDF mass whose
    term (or a stand-in, at its weight) the chunk holds. A query term with no postings
    counts with the IDF of a term found once, so a query the index cannot spell is weak."""
    snap = memory._snap
    if snap is None or not snap.live or not weights:
        return [], {}
    n = float(snap.live)
    avgdl = snap.length_sum / snap.live
    scores = np.zeros(len(snap.chunk_ids), dtype=np.float64)
    held = {q: np.zeros(len(snap.chunk_ids), dtype=np.float64) for q in query_terms}
    idf_of: dict[str, float] = {}
    for q in query_terms:
        df = float(len(memory._postings(snap, q)[0])) or 1.0
        idf_of[q] = math.log(1 + (n - df + 0.5) / (df + 0.5))
    for term, (source, weight) in sorted(weights.items()):
        rows, tfs = memory._postings(snap, term)
        df = float(len(rows))
        if not df:
            continue
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        tf = tfs.astype(np.float64)
        length = snap.lengths[rows].astype(np.float64)
        scores[rows] += weight * idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / avgdl))
        if source in held:
            np.maximum.at(held[source], rows, weight)
    found = np.flatnonzero(scores)
    if videos is not None:
        codes = [memory._codes[v] for v in set(videos) if v in memory._codes]
        found = found[np.isin(snap.codes[found], np.asarray(codes, dtype=np.int32))]
    best = scores[found]
    ids = snap.chunk_ids[found]
    order = np.lexsort((ids, -best))[:limit]
    total = sum(idf_of.values()) or 1.0
    cover = sum(held[q] * idf_of[q] for q in query_terms) / total
    ranked = [(int(ids[i]), float(best[i])) for i in order]
    coverage = {int(ids[i]): float(cover[found[i]]) for i in order}
    return ranked, coverage


# -- the variant engine ---------------------------------------------------------------------


@dataclass
class Lever:
    """What a variant changes (all off: the app's engine)."""

    expansion: str | None = None  # "trigram" | "phonetic" | "edit"
    fusion: str = "rrf"  # "rrf" | "coverage" | "chunk-coverage"
    depth: int | None = None  # both sides' candidates before fusing (SIDE_LIMIT today)
    title_field: bool = False


@dataclass
class _SearchState:
    """The current search's keyword coverages (the eval runs one search at a time)."""

    coverage: dict[int, float] = field(default_factory=dict)
    keyword_ids: list[int] = field(default_factory=list)


class LeverEngine(SearchEngine):
    lever = Lever()

    def __init__(self, store: Any, embedder: Any, **kwargs: Any) -> None:
        # the engine's own coverage weighting off: `lever_fusion` does each variant's
        kwargs.setdefault("fusion", FusionSettings(keyword_coverage=False))
        super().__init__(store, embedder, **kwargs)
        self._vocab: Vocabulary | None = None
        self.current = _SearchState()

    async def search(self, request: Any) -> Any:
        self.current = _SearchState()
        return await super().search(request)

    def _load_keywords(self) -> None:
        super()._load_keywords()
        if self.lever.title_field:
            _add_title_terms(self)
        self._vocab = None

    def vocabulary(self) -> Vocabulary:
        if self._vocab is None:
            self._vocab = Vocabulary.of(self.keywords)
        return self._vocab

    def _keyword_ids(
        self,
        parsed: ParsedQuery,
        allowed: list[str] | None,
        candidates: set[int] | None = None,
        checked: dict[int, bool] | None = None,
        cutoff: Any = None,
        dropped: dict[str, int] | None = None,
        coverage: dict[int, float] | None = None,
    ) -> list[int]:
        weights = {t: (t, 1.0) for t in parsed.terms}
        if self.lever.expansion:
            vocab = self.vocabulary()
            for term in parsed.terms:
                if vocab.df.get(term, 0) > RARE_DF:
                    continue
                for other, sim in vocab.similar(term, self.lever.expansion):
                    if other not in weights:
                        weights[other] = (term, EXPANSION_WEIGHT * sim)
        limit = engine_module.PHRASE_CANDIDATES if _filters(parsed) else engine_module.CANDIDATES
        ranked, coverage = weighted_top(
            self.keywords, weights, parsed.terms, limit=limit, videos=allowed
        )
        kept = self._satisfying([cid for cid, _ in ranked], parsed, candidates, checked)
        self.current.coverage, self.current.keyword_ids = coverage, kept
        return kept

    # the fused score of a chunk or a merged range: which keyword rank weighs how much
    def keyword_weight(self, rank: int) -> float:
        if self.lever.fusion == "rrf" or not self.current.keyword_ids:
            return 1.0
        ids = self.current.keyword_ids
        if self.lever.fusion == "coverage":
            return self.current.coverage.get(ids[0], 1.0)
        return self.current.coverage.get(ids[rank - 1], 1.0)


def _filters(parsed: ParsedQuery) -> bool:
    return bool(parsed.phrases or parsed.excluded_terms or parsed.excluded_phrases)


def _add_title_terms(engine: SearchEngine) -> None:
    """Each chunk's keyword terms plus its video's title and its chapter's title."""
    rows = (
        engine.reads.cursor()
        .execute(
            """SELECT c.id, c.video_id, coalesce(v.user_title, v.title), coalesce(ch.title, '')
               FROM chunks c JOIN videos v ON v.id = c.video_id
               LEFT JOIN chapters ch ON ch.video_id = c.video_id AND ch.idx = c.chapter
               ORDER BY c.video_id, c.id"""
        )
        .fetchall()
    )
    data = engine.reads.keyword_postings()
    vocab = data["vocab"]
    terms: dict[int, list[str]] = {}
    for tid, cid, tf in zip(
        data["tids"].tolist(), data["posting_chunks"].tolist(), data["tfs"].tolist(), strict=True
    ):
        terms.setdefault(cid, []).extend([vocab[tid]] * tf)
    by_video: dict[str, list[tuple[int, list[str]]]] = {}
    for cid, vid, title, chapter in rows:
        extra = tokenize(f"{title} {chapter}")
        by_video.setdefault(vid, []).append((cid, terms.get(cid, []) + extra))
    for vid, chunks in by_video.items():
        engine.keywords.replace_video(vid, [c for c, _ in chunks], [t for _, t in chunks])


@contextlib.contextmanager
def lever_fusion(engine: LeverEngine) -> Iterator[None]:
    """Route the engine module's fusion through the variant's keyword weights."""
    rrf, fused_score, side_limit = (
        engine_module.rrf,
        engine_module.fused_score,
        engine_module.SIDE_LIMIT,
    )

    def weighted_rrf(
        rankings: Mapping[str, Sequence[int]], settings: FusionSettings, per_rank: Any = None
    ) -> list[Fused]:
        fused: dict[int, Fused] = {}
        for side, ids in rankings.items():
            for rank, chunk_id in enumerate(ids, start=1):
                weight = engine.keyword_weight(rank) if side == "keyword" else 1.0
                entry = fused.setdefault(chunk_id, Fused(chunk_id, 0.0, {}))
                entry.score += weight / (settings.k + rank)
                entry.ranks[side] = rank
        return sorted(
            fused.values(),
            key=lambda f: (-f.score, min(f.ranks.values()), "keyword" not in f.ranks, f.chunk_id),
        )

    def weighted_score(
        ranks: Mapping[str, int], settings: FusionSettings, per_rank: Any = None
    ) -> float:
        return sum(
            (engine.keyword_weight(rank) if side == "keyword" else 1.0) / (settings.k + rank)
            for side, rank in ranks.items()
        )

    engine_module.rrf, engine_module.fused_score = weighted_rrf, weighted_score  # type: ignore[assignment]
    if engine.lever.depth:
        engine_module.SIDE_LIMIT = engine.lever.depth
    try:
        yield
    finally:
        engine_module.rrf, engine_module.fused_score = rrf, fused_score
        engine_module.SIDE_LIMIT = side_limit


GROUPS: dict[str, dict[str, Lever]] = {
    "asr": {
        "asr-trigram": Lever(expansion="trigram"),
        "asr-phonetic": Lever(expansion="phonetic"),
        "asr-edit": Lever(expansion="edit"),
    },
    "fusion": {
        "fuse-coverage": Lever(fusion="coverage"),
        "fuse-chunk-coverage": Lever(fusion="chunk-coverage"),
        "depth-20": Lever(depth=20),
        "depth-100": Lever(depth=100),
    },
    "field": {"title-field": Lever(title_field=True)},
}


# -- running and reporting ------------------------------------------------------------------


def _engine_class(lever: Lever) -> Callable[[Any, Any], LeverEngine]:
    return type("Variant", (LeverEngine,), {"lever": lever})  # type: ignore[return-value]


async def _measure(variants: Mapping[str, Lever]) -> dict[str, Any]:
    embedder = default_embedder()
    out: dict[str, Any] = {}
    try:
        async with eval_library(default_corpus(), embedder) as (lib, _):
            for name, lever in variants.items():
                engine = _engine_class(lever)(lib.store, embedder)
                try:
                    with lever_fusion(engine):
                        runs = await search_all(engine, lib, MODES, 5)
                finally:
                    await engine.aclose()
                out[name] = {
                    "modes": {m: evaluate(runs.results[m], k=5) for m in MODES},
                    "ms": {m: statistics.median(runs.ms[m].values()) for m in MODES},
                }
                print(table({name: out[name]}), flush=True)
    finally:
        await embedder.aclose()
    return out


def table(results: Mapping[str, Any]) -> str:
    head = (
        "| variant | split | keyword MRR / Hit@5 | vector MRR / Hit@5 | hybrid MRR / Hit@5 "
        "| ms/q kw, vec, hyb |"
    )
    lines = [head, "|---|---|---|---|---|---|"]
    for name, r in results.items():
        for split in ("dev", "held-out"):
            cells = []
            for m in MODES:
                s = r["modes"][m]["by_split"][split]
                cells.append(f"{s['mrr']:.3f} / {s['hit_at_k']:.3f}")
            ms = ", ".join(f"{r['ms'][m]:.1f}" for m in MODES)
            lines.append(f"| {name} | {split} | " + " | ".join(cells) + f" | {ms} |")
    return "\n".join(lines)


def kind_table(results: Mapping[str, Any], mode: str) -> str:
    """MRR per query kind and split for one mode, plus the ASR-misspelling queries."""
    queries = {
        q["id"]: q for q in json.loads((REPO / "tests/eval/queries.json").read_text())["queries"]
    }
    groups: dict[str, list[str]] = {}
    for qid, q in queries.items():
        split = q.get("split", "dev")
        groups.setdefault(f"{split} {q['kind']}", []).append(qid)
    groups["held-out asr"] = list(ASR_QUERIES)
    names = sorted(groups)
    lines = [f"| {mode} MRR | " + " | ".join(f"{g} ({len(groups[g])})" for g in names) + " |"]
    lines.append("|---|" + "---|" * len(names))
    for variant, r in results.items():
        per = r["modes"][mode]["per_query"]
        cells = [f"{statistics.mean(per[q]['mrr'] for q in groups[g]):.3f}" for g in names]
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def changed(results: Mapping[str, Any], base: str, mode: str) -> str:
    """Queries whose reciprocal rank a variant moved, per variant (dev split first)."""
    lines = []
    ref = results[base]["modes"][mode]["per_query"]
    for variant, r in results.items():
        if variant == base:
            continue
        per = r["modes"][mode]["per_query"]
        moved = [
            f"{q} {ref[q]['mrr']:.2f}->{per[q]['mrr']:.2f}"
            for q in sorted(per)
            if abs(per[q]["mrr"] - ref[q]["mrr"]) > 1e-9
        ]
        lines.append(f"{variant} ({mode}): {', '.join(moved) or 'no change'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levers", default="asr,fusion,field")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    variants: dict[str, Lever] = {"base": Lever()}
    for group in args.levers.split(","):
        variants.update(GROUPS[group.strip()])
    results = asyncio.run(_measure(variants))
    print("\n" + table(results))
    for mode in ("keyword", "hybrid"):
        print("\n" + kind_table(results, mode))
        print(changed(results, "base", mode))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
