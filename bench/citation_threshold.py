"""What `match_score` a citation gets when its source supports the sentence, and when not.

Over every long transcript of the corpus (`../shared/corpus/transcripts/INDEX.json`), each
video is cut into sources the way `ask.retrieval` cuts it (consecutive segments, at most
`MAX_RANGE_S` seconds). Claims are sentences of those sources' own text, and each is scored
with `ask.citations.narrow` (what a real citation gets) against:

- its **true** source, verbatim (the upper bound: a model that quotes);
- its true source, **compressed**: a random half of its words, at least 4 (a model that
  shortens and paraphrases keeps only some of the words);
- a random source of **another video** of another topic cluster (an unrelated citation);
- a random source of the **same video**, not the true one nor its neighbours (the hard
  case: same speaker, same topic words).

Prints, per kind, the share of pairs at each score and the percentiles, how many of each
kind a plain threshold would let through, and how many the rule in use
(`matching.MIN_SUPPORT`, `verified`) counts as supporting.
Run: .venv/bin/python bench/citation_threshold.py
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from v2c_desktop.core.ask.citations import narrow  # noqa: E402
from v2c_desktop.core.ask.retrieval import MAX_RANGE_S  # noqa: E402
from v2c_desktop.core.ask.sources import Source, SourceRange, number_sources  # noqa: E402
from v2c_desktop.core.captions import parse_captions  # noqa: E402
from v2c_desktop.core.domain.videos import Segment, Video  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "transcripts"
CLAIMS_PER_VIDEO = 40
SEED = 22
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORDS = re.compile(r"\S+")


def windows(segments: list[Segment]) -> list[list[Segment]]:
    """Consecutive segments in ranges of at most MAX_RANGE_S seconds (as `retrieval`)."""
    out: list[list[Segment]] = []
    current: list[Segment] = []
    for seg in segments:
        if current and seg.end - current[0].start > MAX_RANGE_S:
            out.append(current)
            current = []
        current.append(seg)
    if current:
        out.append(current)
    return out


def claims(text: str) -> list[str]:
    """Sentences of 6-40 words; unpunctuated captions are cut every 15 words instead."""
    sentences = [s for s in _SENTENCE.split(text) if 6 <= len(s.split()) <= 40]
    if len(sentences) >= 3:
        return sentences
    words = text.split()
    return [" ".join(words[i : i + 15]) for i in range(0, len(words) - 14, 15)]


def compressed(sentence: str, rng: random.Random) -> str:
    words = _WORDS.findall(sentence)
    keep = max(4, len(words) // 2)
    chosen = sorted(rng.sample(range(len(words)), min(keep, len(words))))
    return " ".join(words[i] for i in chosen)


def load() -> list[tuple[str, str, list[Source]]]:
    """(video key, cluster, its sources) for every transcript of the index."""
    out = []
    for entry in json.loads((CORPUS / "INDEX.json").read_text(encoding="utf-8")):
        path = CORPUS.parent / entry["path"]
        segments = parse_captions(path.read_bytes(), source_name=path.name)
        video = Video(
            id=f"bench:{entry['video_id']}",
            title=entry["title"],
            platform="local",
            native_id=entry["video_id"],
        )
        ranges = [SourceRange(video, w) for w in windows(segments)]
        out.append((entry["path"], entry["cluster"], number_sources(ranges)))
    return out


def main() -> None:
    if not CORPUS.exists():
        raise SystemExit("../shared/corpus is not beside this checkout")
    rng = random.Random(SEED)
    videos = load()
    kinds = ("true", "compressed", "other", "same")
    scores: dict[str, list[float]] = {k: [] for k in kinds}
    verified: dict[str, list[bool]] = {k: [] for k in kinds}

    def score(kind: str, source: Source, claim: str) -> None:
        citation = narrow(source, claim)
        scores[kind].append(citation.match_score)
        verified[kind].append(citation.verified)

    for key, cluster, sources in videos:
        others = [v for v in videos if v[0] != key and v[1] != cluster]
        pairs = [(i, c) for i, s in enumerate(sources) for c in claims(s.text)]
        for i, claim in rng.sample(pairs, min(CLAIMS_PER_VIDEO, len(pairs))):
            score("true", sources[i], claim)
            score("compressed", sources[i], compressed(claim, rng))
            score("other", rng.choice(rng.choice(others)[2]), claim)
            far = [s for j, s in enumerate(sources) if abs(j - i) > 1]
            if far:
                score("same", rng.choice(far), claim)
    print(f"{len(videos)} transcripts, {len(scores['true'])} claims (seed {SEED})\n")
    print(f"{'kind':11} {'n':>5} {'=0':>6} {'=1':>6} {'=2':>6} {'=3':>6} {'>=4':>6}   p5 p25 p50")
    for kind, values in scores.items():
        count = Counter(min(int(v), 4) for v in values)
        share = [100 * count[k] / len(values) for k in range(5)]
        ordered = sorted(values)
        p = [ordered[int(q * (len(ordered) - 1))] for q in (0.05, 0.25, 0.5)]
        cells = " ".join(f"{s:5.1f}%" for s in share)
        print(f"{kind:11} {len(values):5} {cells}   {p[0]:g} {p[1]:g} {p[2]:g}")
    print("\nshare counted as supporting (score >= t):")
    for t in (1, 2, 3, 4):
        cells = "  ".join(
            f"{kind} {100 * sum(v >= t for v in values) / len(values):5.1f}%"
            for kind, values in scores.items()
        )
        print(f"  t={t}: {cells}")

    cells = "  ".join(
        f"{kind} {100 * sum(values) / len(values):5.1f}%" for kind, values in verified.items()
    )
    print(f"  rule in use (2, or 1 for a sentence of <= 3 terms): {cells}")


if __name__ == "__main__":
    main()
