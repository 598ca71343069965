"""Checks tests/eval/queries.json against the transcripts it points at.

For every expected (and forbidden) range it parses the transcript with the project's own
caption parser and requires the `evidence` quote to occur (case-insensitive, whitespace and
quote marks normalised) in the text of the segments lying inside [start, end]. It also checks
the file's shape, that phrase queries' phrases occur in every expected range, that exclusion
queries' excluded terms occur in no expected range and in every forbidden one, and that
quotes stay short (the corpus is read in place, never copied into the repo).

Run: .venv/bin/python tests/eval/check_queries.py  (exit status 1 when something fails)
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

QUERIES_FILE = Path(__file__).with_name("queries.json")
KINDS = ("exact", "paraphrase", "phrase", "exclusion", "multi")
SPLITS = ("dev", "held-out")  # held-out: written after the search was built, never tuned on
MAX_EVIDENCE_WORDS = 16
MAX_RANGE_SECONDS = 150.0
EDGE = 0.05  # seconds of slack at range edges (float times from the parser)

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def default_corpus() -> Path:
    repo = Path(__file__).resolve().parents[2]
    return Path(os.environ.get("V2C_SHARED", repo.parent / "shared")) / "corpus"


def normalise(text: str) -> str:
    """Lowercase, straight quote marks, single spaces."""
    return " ".join(text.translate(_QUOTES).lower().split())


def load_queries(path: Path = QUERIES_FILE) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return list(data["queries"] if isinstance(data, dict) else data)


def phrases_and_exclusions(query: str) -> tuple[list[str], list[str]]:
    """The quoted phrases that must occur and the `-word` / `-"phrase"` terms that must not."""
    excluded = [
        m.group(1) or m.group(2) for m in re.finditer(r'(?:^|\s)-(?:"([^"]+)"|(\S+))', query)
    ]
    rest = re.sub(r'(?:^|\s)-(?:"[^"]+"|\S+)', " ", query)
    return re.findall(r'"([^"]+)"', rest), excluded


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def term_pattern(term: str) -> re.Pattern[str]:
    """Matches a term with the endings the search tokenizer folds (plural, -ing, -ed)."""
    endings = r"(?:s|es|ing|ed|ly)?\b"
    words = [re.escape(_stem(w)) + endings for w in normalise(term).split()]
    return re.compile(r"\b" + r"\W+".join(words))


@dataclass(frozen=True)
class Problem:
    query_id: str
    message: str

    def __str__(self) -> str:
        return f"{self.query_id}: {self.message}"


class Corpus:
    """Transcripts parsed once each, read in place from ../shared/corpus."""

    def __init__(self, root: Path) -> None:
        self.root = root
        index = json.loads((root / "transcripts" / "INDEX.json").read_text(encoding="utf-8"))
        self.paths = {item["path"] for item in index}

    @cache  # noqa: B019 - one Corpus per run; the cache dies with it
    def segments(self, path: str) -> list[Any]:
        from v2c_desktop.core.captions import parse_captions

        file = self.root / path
        return parse_captions(file.read_bytes(), source_name=str(file))

    def text_between(self, path: str, start: float, end: float) -> str:
        inside = [
            s.text
            for s in self.segments(path)
            if s.start >= start - EDGE and s.end <= end + EDGE and s.end > s.start - EDGE
        ]
        return normalise(" ".join(inside))


def _ranges(query: dict[str, Any], key: str) -> Iterable[dict[str, Any]]:
    return query.get(key) or []


def check_shape(queries: list[dict[str, Any]]) -> list[Problem]:
    problems: list[Problem] = []
    seen: set[str] = set()
    for q in queries:
        qid = str(q.get("id", "?"))

        def report(message: str, qid: str = qid) -> None:
            problems.append(Problem(qid, message))

        if qid in seen:
            report("duplicate id")
        seen.add(qid)
        if not str(q.get("query", "")).strip():
            report("empty query")
        if q.get("kind") not in KINDS:
            report(f"kind {q.get('kind')!r} is not one of {KINDS}")
        if not q.get("expected"):
            report("no expected range")
        if q.get("split", "dev") not in SPLITS:
            report(f"split {q.get('split')!r} is not one of {SPLITS}")
        if q.get("kind") == "exclusion" and not q.get("forbidden"):
            report("an exclusion query needs forbidden ranges")
        if q.get("forbidden") and q.get("kind") != "exclusion":
            report("only exclusion queries have forbidden ranges")
        phrases, excluded = phrases_and_exclusions(str(q.get("query", "")))
        if q.get("kind") == "phrase" and not phrases:
            report("a phrase query needs a quoted phrase")
        if q.get("kind") == "exclusion" and not excluded:
            report("an exclusion query needs a -term")
        if q.get("kind") == "multi" and len({r["path"] for r in _ranges(q, "expected")}) < 2:
            report("a multi query needs expected ranges in at least two transcripts")
        for key in ("expected", "forbidden"):
            for r in _ranges(q, key):
                if not {"path", "start", "end", "evidence"} <= set(r):
                    report(f"{key} range lacks path/start/end/evidence: {r}")
                    continue
                if not 0 <= r["start"] < r["end"]:
                    report(f"{key} range {r['start']}-{r['end']} is empty or negative")
                if r["end"] - r["start"] > MAX_RANGE_SECONDS:
                    report(
                        f"{key} range {r['start']}-{r['end']} is longer than {MAX_RANGE_SECONDS} s"
                    )
                if len(str(r["evidence"]).split()) > MAX_EVIDENCE_WORDS:
                    report(f"evidence longer than {MAX_EVIDENCE_WORDS} words: {r['evidence']!r}")
    return problems


def check_against_corpus(queries: list[dict[str, Any]], corpus: Corpus) -> list[Problem]:
    problems: list[Problem] = []
    for q in queries:
        qid = str(q["id"])
        phrases, excluded = phrases_and_exclusions(str(q["query"]))
        for key in ("expected", "forbidden"):
            for r in _ranges(q, key):
                where = f"{key} {r['path'].rsplit('/', 2)[-2]}… {r['start']}-{r['end']}"
                if r["path"] not in corpus.paths:
                    problems.append(Problem(qid, f"{r['path']} is not in INDEX.json"))
                    continue
                text = corpus.text_between(r["path"], r["start"], r["end"])
                if not text:
                    problems.append(Problem(qid, f"{where}: no segment inside the range"))
                    continue
                if normalise(str(r["evidence"])) not in text:
                    problems.append(Problem(qid, f"{where}: evidence {r['evidence']!r} not found"))
                if key == "expected":
                    for phrase in phrases:
                        if not term_pattern(phrase).search(text):
                            problems.append(Problem(qid, f"{where}: phrase {phrase!r} missing"))
                    for term in excluded:
                        if term_pattern(term).search(text):
                            problems.append(Problem(qid, f"{where}: contains excluded {term!r}"))
                elif not any(term_pattern(t).search(text) for t in excluded):
                    problems.append(Problem(qid, f"{where}: holds none of the excluded terms"))
    return problems


def check(queries: list[dict[str, Any]], corpus: Corpus | None) -> list[Problem]:
    problems = check_shape(queries)
    if corpus is not None:
        problems += check_against_corpus(queries, corpus)
    return problems


def summary(queries: list[dict[str, Any]]) -> dict[str, Any]:
    kinds = {k: sum(1 for q in queries if q["kind"] == k) for k in KINDS}
    transcripts = {r["path"] for q in queries for r in _ranges(q, "expected")}
    return {"queries": len(queries), "kinds": kinds, "transcripts": len(transcripts)}


def main() -> int:
    corpus_root = default_corpus()
    queries = load_queries()
    if not (corpus_root / "transcripts" / "INDEX.json").exists():
        print(f"corpus not found at {corpus_root}; only the file's shape is checked")
        corpus = None
    else:
        corpus = Corpus(corpus_root)
    problems = check(queries, corpus)
    for p in problems:
        print(p)
    print(json.dumps(summary(queries)))
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    sys.exit(main())
