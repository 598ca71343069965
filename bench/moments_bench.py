"""Key moments: how well the extractive topic shifts find the creators' chapters, and times.

The ten Crash Course Psychology videos are imported from their subtitle files alone (no
chapters) and embedded; their chapters (from the info.json beside each in the corpus) are
the truth. Prints:

* the AUC with which the drop scores (`extractive.drop_depths`) rank the chunk boundary
  nearest each chapter start above the other boundaries (0.5 would be chance), and that of
  the plain lowest similarity;
* of `get_key_moments` asked for as many moments as a video has chapters (less the first):
  the share of chapter starts with a moment within 15 s, and of moments near a chapter
  start, against evenly spaced moments;
* the time of `get_key_moments` on the extractive paths (chapters, topic shifts), and with
  SmolLM2-135M under llama.cpp's grammar on a one-minute transcript (`--skip-model` not to).

    .venv/bin/python bench/moments_bench.py [--skip-model]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from v2c_desktop.core.api import CoreAPI  # noqa: E402
from v2c_desktop.core.moments.extractive import boundary_similarities, drop_depths  # noqa: E402
from v2c_desktop.core.services import Services  # noqa: E402
from v2c_desktop.core.settings import Settings  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus" / "transcripts" / "crashcourse-psychology"
MODEL = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
TOLERANCE_S = 15.0


def auc(scores: list[float], positive: list[bool]) -> float:
    pos = [s for s, p in zip(scores, positive, strict=True) if p]
    neg = [s for s, p in zip(scores, positive, strict=True) if not p]
    pairs = [(a > b) + 0.5 * (a == b) for a in pos for b in neg]
    return sum(pairs) / len(pairs)


def near(times: list[float], targets: list[float]) -> int:
    return sum(1 for t in times if any(abs(t - x) <= TOLERANCE_S for x in targets))


async def main(skip_model: bool) -> None:
    if not CORPUS.exists():
        raise SystemExit(f"the corpus is not beside this checkout ({CORPUS})")
    work = Path(tempfile.mkdtemp(prefix="v2c-moments-bench-"))
    folder = work / "videos"
    folder.mkdir()
    chapters: dict[str, list[float]] = {}
    for srt in sorted(CORPUS.glob("*.en.srt")):
        shutil.copy(srt, folder / srt.name)
        info = json.loads((CORPUS / (srt.name[: -len(".en.srt")] + ".info.json")).read_text())
        chapters[srt.name] = [float(c["start_time"]) for c in info["chapters"]]
    services = await asyncio.to_thread(
        Services.open, work / "lib.duckdb", settings=Settings(), index_on_import=False
    )
    api = CoreAPI(services)
    try:
        result = await api.add([str(folder)])
        started = time.perf_counter()
        await api.index_pending()
        print(
            f"{len(result.changed_ids)} videos imported and embedded in "
            f"{time.perf_counter() - started:.1f} s"
        )
        depth_aucs, low_aucs = [], []
        shift_hits = shift_near = even_hits = even_near = truth_count = picked = 0
        extractive_ms = []
        for video_id in result.changed_ids:
            record = await api.get_video(video_id)
            truth = [t for t in chapters[Path(record.video.source_path).name] if t > 0]
            segments = record.transcript.segments
            stored = services.store.video_vectors(video_id, services.embedder.info.id)
            assert stored is not None, video_id
            firsts, _lasts, matrix = stored
            boundaries = np.array([segments[f].start for f in firsts[1:]])
            positive = [False] * len(boundaries)
            for t in truth:
                positive[int(np.argmin(np.abs(boundaries - t)))] = True
            similarities = boundary_similarities(matrix)
            depth_aucs.append(auc(drop_depths(similarities), positive))
            low_aucs.append(auc([-s for s in similarities], positive))
            t0 = time.perf_counter()
            found = await api.get_key_moments(video_id, len(truth))
            extractive_ms.append((time.perf_counter() - t0) * 1000)
            assert found.basis == "topic-shifts", found.basis
            times = [m.start for m in found.moments]
            even = [record.duration * (k + 1) / (len(truth) + 1) for k in range(len(truth))]
            truth_count += len(truth)
            picked += len(times)
            shift_hits += near(truth, times)
            shift_near += near(times, truth)
            even_hits += near(truth, even)
            even_near += near(even, truth)
        print(
            f"chapter boundaries ranked by drop depth: AUC {statistics.mean(depth_aucs):.3f}"
            f" (lowest similarity: {statistics.mean(low_aucs):.3f}; chance 0.5)"
        )
        print(
            f"topic shifts: {shift_hits / truth_count:.2f} of {truth_count} chapter starts "
            f"have a moment within {TOLERANCE_S:.0f} s; {shift_near / picked:.2f} of "
            f"{picked} moments are near one"
        )
        print(
            f"evenly spaced: {even_hits / truth_count:.2f} of the chapter starts; "
            f"{even_near / truth_count:.2f} of the moments"
        )
        print(
            f"get_key_moments, topic shifts: p50 {statistics.median(extractive_ms):.1f} ms, "
            f"max {max(extractive_ms):.1f} ms"
        )
        with_chapters = work / "chapters"
        with_chapters.mkdir()
        name = "consciousness_crash_course_psychology_8_jReX7qKU2yc"
        for suffix in (".en.srt", ".info.json"):
            shutil.copy(CORPUS / f"{name}{suffix}", with_chapters / f"{name}{suffix}")
        await api.add([str(with_chapters)])
        runs = []
        for _ in range(5):
            t0 = time.perf_counter()
            found = await api.get_key_moments("youtube:jReX7qKU2yc")
            runs.append((time.perf_counter() - t0) * 1000)
        print(
            f"get_key_moments, chapters: p50 {statistics.median(runs):.1f} ms "
            f"({len(found.moments)} moments, {found.label()})"
        )
        if not skip_model:
            await model_run(api, work)
    finally:
        await api.aclose()
        shutil.rmtree(work, ignore_errors=True)


async def model_run(api: CoreAPI, work: Path) -> None:
    source = CORPUS / "homunculus_crash_course_psychology_6_fxZWtc0mYpQ.en.srt"
    short = work / "homunculus_fxZWtc0mYpQ.en.srt"
    short.write_text("\n\n".join(source.read_text().strip().split("\n\n")[:24]) + "\n")
    (video_id,) = (await api.add([str(short)])).changed_ids
    marks: list[tuple[float, str]] = []
    t0 = time.perf_counter()
    found = await api.get_key_moments(
        video_id, 3, model=MODEL, progress=lambda e: marks.append((time.perf_counter(), e.message))
    )
    total = time.perf_counter() - t0
    for at, message in marks:
        print(f"  {at - t0:6.1f} s  {message}")
    note = f": {found.note}" if found.note else ""
    print(
        f"SmolLM2 on a one-minute transcript: {total:.1f} s, {found.method} "
        f"({len(found.moments)} moments, {found.dropped} dropped){note}"
    )
    t0 = time.perf_counter()
    again = await api.get_key_moments(video_id, 3, model=MODEL)
    print(f"again (cached={again.cached}): {(time.perf_counter() - t0) * 1000:.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-model", action="store_true")
    asyncio.run(main(parser.parse_args().skip_model))
