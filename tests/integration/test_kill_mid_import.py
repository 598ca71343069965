"""A batch import killed with SIGKILL midway leaves every earlier video whole."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS, REPO
from v2c_desktop.core.store import open_library

pytestmark = [pytest.mark.corpus, pytest.mark.slow]


def test_sigkill_midway_keeps_every_earlier_video(tmp_path: Path) -> None:
    index = CORPUS / "transcripts" / "INDEX.json"
    if not index.exists():
        pytest.skip("../shared/corpus is not beside this checkout")
    paths = [str(CORPUS / item["path"]) for item in json.loads(index.read_text())]
    library = tmp_path / "lib.duckdb"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "v2c_desktop.cli.main", "--library", str(library), "add", *paths],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    reported: list[str] = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if line.startswith("added"):
                reported.append(line.split()[1])
            if len(reported) == 12:
                proc.send_signal(signal.SIGKILL)
                break
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL, "the import finished before it could be killed"

    with open_library(library) as store:  # the dead owner's lock is gone
        summaries = {s.id: s for s in store.list_videos()}
        assert set(reported) <= set(summaries)
        assert len(summaries) < len(paths)  # it really died midway
        for vid in summaries:
            record = store.get_video(vid)
            assert len(record.transcript.segments) == summaries[vid].segment_count > 0
            assert record.video.title
            idx = [s.start for s in record.transcript.segments]
            assert idx == sorted(idx)
        # the library still takes writes after the crash
        store.create_collection("after the crash")
        assert [c.name for c in store.list_collections()] == ["after the crash"]
