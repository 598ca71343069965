"""Checks tests/eval/ask_questions.json against the transcripts it points at.

The file holds questions a user would ask of one video or a few, each with the ranges of
those videos where the answer is said (read out of the transcripts, not found by keyword
search). This script checks the file's shape (ids, at least `MIN_QUESTIONS` questions, some
over several videos, ranges of 3 to 120 seconds, every support inside the question's
videos, evidence of 3 to 16 words) and, with the corpus present, that every support's
`evidence` occurs, normalised as in check_queries.py, in the text of the segments lying
inside [start, end]. It also flags a question that copies its evidence word for word: the
questions are paraphrases, so keyword overlap alone must not answer them.

Run: .venv/bin/python tests/eval/check_ask_questions.py  (exit status 1 when something fails)
Import: `check(path) -> list[str]`, the problems found (empty when the file is sound).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `tests.eval` and the app importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.eval.check_queries import MAX_EVIDENCE_WORDS, Corpus, default_corpus, normalise

QUESTIONS_FILE = Path(__file__).with_name("ask_questions.json")
MIN_QUESTIONS = 30
MIN_MULTI_VIDEO = 3
MIN_EVIDENCE_WORDS = 3
MIN_RANGE_SECONDS = 3.0
MAX_RANGE_SECONDS = 120.0


def load_questions(path: str | Path = QUESTIONS_FILE) -> list[dict[str, Any]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return list(data["questions"] if isinstance(data, dict) else data)


def check_shape(questions: list[dict[str, Any]]) -> list[str]:
    """Problems that need no corpus: ids, counts, evidence lengths, range lengths, paths."""
    problems: list[str] = []
    report = problems.append
    if len(questions) < MIN_QUESTIONS:
        report(f"{len(questions)} questions; at least {MIN_QUESTIONS} needed")
    multi = sum(1 for q in questions if len(set(q.get("videos") or [])) >= 2)
    if multi < MIN_MULTI_VIDEO:
        report(f"{multi} questions over several videos; at least {MIN_MULTI_VIDEO} needed")
    seen: set[str] = set()
    for q in questions:
        qid = str(q.get("id", "?"))
        if qid in seen:
            report(f"{qid}: duplicate question id")
        seen.add(qid)
        question = str(q.get("question", "")).strip()
        if not question:
            report(f"{qid}: empty question")
        videos = list(q.get("videos") or [])
        if not videos or len(set(videos)) != len(videos):
            report(f"{qid}: no videos, or a video listed twice")
        supports = list(q.get("support") or [])
        if not supports:
            report(f"{qid}: no support")
        for s in supports:
            if not {"path", "start", "end", "evidence"} <= set(s):
                report(f"{qid}: support lacks path/start/end/evidence: {s}")
                continue
            where = f"{qid} {Path(s['path']).name} {s['start']}-{s['end']}"
            if s["path"] not in videos:
                report(f"{where}: the path is not one of the question's videos")
            start, end = s["start"], s["end"]
            if not all(isinstance(t, int | float) for t in (start, end)) or start < 0:
                report(f"{where}: start and end must be seconds, start >= 0")
                continue
            if not MIN_RANGE_SECONDS <= end - start <= MAX_RANGE_SECONDS:
                report(f"{where}: range is {end - start:.2f} s long")
            words = len(str(s["evidence"]).split())
            if not MIN_EVIDENCE_WORDS <= words <= MAX_EVIDENCE_WORDS:
                report(f"{where}: evidence has {words} words: {s['evidence']!r}")
            elif words >= 5 and normalise(str(s["evidence"])) in normalise(question):
                report(f"{where}: the question copies its evidence word for word")
        cited = {s.get("path") for s in supports}
        for video in videos:
            if len(videos) > 1 and video not in cited:
                report(f"{qid}: video {video} supports nothing")
    return problems


def check_against_corpus(questions: list[dict[str, Any]], corpus: Corpus) -> list[str]:
    problems: list[str] = []
    for q in questions:
        qid = str(q.get("id", "?"))
        for s in q.get("support") or []:
            if not {"path", "start", "end", "evidence"} <= set(s):
                continue
            where = f"{qid} {Path(s['path']).name} {s['start']}-{s['end']}"
            if not (corpus.root / s["path"]).is_file():
                problems.append(f"{where}: file not found in the corpus")
                continue
            text = corpus.text_between(s["path"], s["start"], s["end"])
            if not text:
                problems.append(f"{where}: no segment lies inside the range")
            elif normalise(str(s["evidence"])) not in text:
                problems.append(f"{where}: evidence {s['evidence']!r} not found in the range")
    return problems


def check(path: str | Path = QUESTIONS_FILE, corpus_root: Path | None = None) -> list[str]:
    """Every problem with the questions file at `path`; [] when it is sound.

    Without the corpus the supports cannot be verified, and that is reported as a problem.
    """
    try:
        questions = load_questions(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [f"{path}: cannot be read as a questions file: {exc}"]
    problems = check_shape(questions)
    root = corpus_root if corpus_root is not None else default_corpus()
    if not (root / "transcripts" / "INDEX.json").exists():
        return [*problems, f"corpus not found at {root}; no support could be verified"]
    return problems + check_against_corpus(questions, Corpus(root))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    problems = check(Path(args[0]) if args else QUESTIONS_FILE)
    for p in problems:
        print(p)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
