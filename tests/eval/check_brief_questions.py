"""Checks tests/eval/brief_questions.json against the transcripts it points at.

The file holds questions a user would ask of several videos together, each with the key
points a good brief must cover and, for every key point, the ranges of the videos where it
is said. This script checks its shape (ids, at least 5 key points and 2 videos a question,
evidence of 6 to 16 words, ranges of 5 to 60 seconds, every support inside the question's
videos, every video cited) and, with the corpus present, that every video is a caption file
the app imports (a subtitle extension, parsed by the project's own caption parser into at
least one segment) and that every support's `evidence` occurs, normalised as in
check_queries.py, in the text of the segments lying inside [start, end].

Run: .venv/bin/python tests/eval/check_brief_questions.py  (exit status 1 when something fails)
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

QUESTIONS_FILE = Path(__file__).with_name("brief_questions.json")
MIN_KEY_POINTS = 5
MIN_VIDEOS = 2
MIN_EVIDENCE_WORDS = 6
MIN_RANGE_SECONDS = 5.0
MAX_RANGE_SECONDS = 60.0


def load_questions(path: str | Path = QUESTIONS_FILE) -> list[dict[str, Any]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return list(data["questions"] if isinstance(data, dict) else data)


def _supports(question: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (str(kp.get("id", "?")), s)
        for kp in question.get("key_points") or []
        for s in kp.get("support") or []
    ]


def check_shape(questions: list[dict[str, Any]]) -> list[str]:
    """Problems that need no corpus: ids, counts, quote lengths, range lengths, paths."""
    problems: list[str] = []
    seen: set[str] = set()
    for q in questions:
        qid = str(q.get("id", "?"))
        report = problems.append
        if qid in seen:
            report(f"{qid}: duplicate question id")
        seen.add(qid)
        if not str(q.get("question", "")).strip():
            report(f"{qid}: empty question")
        videos = list(q.get("videos") or [])
        if len(set(videos)) != len(videos):
            report(f"{qid}: a video is listed twice")
        if len(set(videos)) < MIN_VIDEOS:
            report(f"{qid}: {len(set(videos))} video(s); a question needs at least {MIN_VIDEOS}")
        key_points = list(q.get("key_points") or [])
        if len(key_points) < MIN_KEY_POINTS:
            report(f"{qid}: {len(key_points)} key point(s); at least {MIN_KEY_POINTS} needed")
        kp_ids: set[str] = set()
        for kp in key_points:
            kid = f"{qid}/{kp.get('id', '?')}"
            if kp.get("id") in kp_ids:
                report(f"{kid}: duplicate key point id")
            kp_ids.add(kp.get("id"))
            if not str(kp.get("point", "")).strip():
                report(f"{kid}: empty point")
            if not kp.get("support"):
                report(f"{kid}: no support")
            for s in kp.get("support") or []:
                if not {"path", "start", "end", "evidence"} <= set(s):
                    report(f"{kid}: support lacks path/start/end/evidence: {s}")
                    continue
                where = f"{kid} {Path(s['path']).name} {s['start']}-{s['end']}"
                if s["path"] not in videos:
                    report(f"{where}: the path is not one of the question's videos")
                start, end = s["start"], s["end"]
                if not all(isinstance(t, int | float) for t in (start, end)) or start < 0:
                    report(f"{where}: start and end must be seconds, start >= 0")
                    continue
                length = end - start
                if not MIN_RANGE_SECONDS <= length <= MAX_RANGE_SECONDS:
                    report(
                        f"{where}: range is {length:.2f} s, not "
                        f"{MIN_RANGE_SECONDS:g}-{MAX_RANGE_SECONDS:g} s"
                    )
                words = len(str(s["evidence"]).split())
                if not MIN_EVIDENCE_WORDS <= words <= MAX_EVIDENCE_WORDS:
                    report(
                        f"{where}: evidence has {words} words, not "
                        f"{MIN_EVIDENCE_WORDS}-{MAX_EVIDENCE_WORDS}: {s['evidence']!r}"
                    )
        cited = {s.get("path") for _, s in _supports(q)}
        for video in videos:
            if video not in cited:
                report(f"{qid}: video {video} supports no key point")
    return problems


def _importable(corpus: Corpus, path: str) -> str | None:
    """Why the app could not import this video's captions, or None when it can."""
    from v2c_desktop.core.file_kinds import is_subtitle

    file = corpus.root / path
    if not file.is_file():
        return "file not found in the corpus"
    if not is_subtitle(file):
        return f"{file.suffix!r} is not a subtitle extension the importer reads"
    try:
        segments = corpus.segments(path)
    except Exception as exc:  # V2CError from the parser: the import would fail the same way
        return f"the caption parser refuses it: {exc}"
    if not segments:
        return "the caption parser finds no segment"
    return None


def check_against_corpus(questions: list[dict[str, Any]], corpus: Corpus) -> list[str]:
    problems: list[str] = []
    bad_videos: set[str] = set()
    for q in questions:
        qid = str(q.get("id", "?"))
        for video in q.get("videos") or []:
            reason = _importable(corpus, video)
            if reason is not None:
                problems.append(f"{qid}: video {video}: {reason}")
                bad_videos.add(video)
        for kp_id, s in _supports(q):
            if not {"path", "start", "end", "evidence"} <= set(s) or s["path"] in bad_videos:
                continue
            where = f"{qid}/{kp_id} {Path(s['path']).name} {s['start']}-{s['end']}"
            reason = _importable(corpus, s["path"])
            if reason is not None:
                problems.append(f"{where}: {reason}")
                continue
            text = corpus.text_between(s["path"], s["start"], s["end"])
            if not text:
                problems.append(f"{where}: no segment lies inside the range")
            elif normalise(str(s["evidence"])) not in text:
                problems.append(f"{where}: evidence {s['evidence']!r} not found in the range")
    return problems


def check(path: str | Path = QUESTIONS_FILE, corpus_root: Path | None = None) -> list[str]:
    """Every problem with the questions file at `path`; [] when it is sound.

    The corpus is ../shared/corpus (or $V2C_SHARED/corpus) unless `corpus_root` is given;
    without it the supports cannot be verified, and that is reported as a problem.
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


def summary(questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per question: videos, key points, and key points supported in two or more videos."""
    rows = []
    for q in questions:
        key_points = q.get("key_points") or []
        multi = sum(
            1 for kp in key_points if len({s["path"] for s in kp.get("support") or []}) >= 2
        )
        rows.append(
            {
                "id": q.get("id"),
                "videos": len(q.get("videos") or []),
                "key_points": len(key_points),
                "multi_video_key_points": multi,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = Path(args[0]) if args else QUESTIONS_FILE
    problems = check(path)
    for p in problems:
        print(p)
    try:
        rows = summary(load_questions(path))
    except (OSError, ValueError, KeyError, TypeError):
        rows = []
    for row in rows:
        print(
            f"{row['id']}: {row['videos']} videos, {row['key_points']} key points, "
            f"{row['multi_video_key_points']} supported by 2+ videos"
        )
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
