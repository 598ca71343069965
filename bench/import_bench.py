"""Hours of transcript imported per second over the whole corpus (../shared/corpus).

Imports every INDEX.json transcript into a fresh library three times (cold file each time)
and prints the best and median rates, split into parse time and total time.
Run: .venv/bin/python bench/import_bench.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from v2c_desktop.core.captions import parse_captions  # noqa: E402
from v2c_desktop.core.library import Library  # noqa: E402
from v2c_desktop.core.store import open_library  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"


async def import_all(paths: list[str], library_file: Path) -> tuple[float, float]:
    store = open_library(library_file)
    library = Library(store)
    try:
        started = time.perf_counter()
        result = await library.add(paths)
        elapsed = time.perf_counter() - started
        if result.count("failed"):
            raise SystemExit(f"import failed: {result.to_dict()}")
        hours = sum(v.duration for v in await library.list_videos()) / 3600
        return hours, elapsed
    finally:
        await library.aclose()
        store.close()


def main() -> None:
    index = CORPUS / "transcripts" / "INDEX.json"
    if not index.exists():
        raise SystemExit("../shared/corpus is not beside this checkout; nothing to measure")
    paths = [str(CORPUS / item["path"]) for item in json.loads(index.read_text())]
    started = time.perf_counter()
    segments = sum(len(parse_captions(Path(p).read_bytes(), source_name=p)) for p in paths)
    parse_s = time.perf_counter() - started
    runs = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            runs.append(asyncio.run(import_all(paths, Path(tmp) / "bench.duckdb")))
    hours = runs[0][0]
    times = [t for _, t in runs]
    print(f"corpus: {len(paths)} transcripts, {hours:.1f} hours of speech, {segments} segments")
    print(f"parse only: {parse_s:.2f} s ({hours / parse_s:.1f} hours/s)")
    print(
        f"import (parse + store, one transaction per video), 3 runs: "
        f"best {min(times):.2f} s, median {statistics.median(times):.2f} s"
    )
    print(
        f"hours of transcript imported per second: best {hours / min(times):.1f}, "
        f"median {hours / statistics.median(times):.1f}"
    )


if __name__ == "__main__":
    main()
