"""`CoreAPI.export_obsidian` over a real library: a template brief exported alone brings the
videos its template results cite (not only those its points cite), and the index groups
the notes by every collection of the library. The brief is written by the scripted model
of the brief tests (a real library, real corpus captions, real verification)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.unit.briefs.scripted import BriefWriter
from tests.unit.briefs.test_pipeline import MAKE, QUESTION, build, folder, open_core
from tests.unit.owner.toys import run
from v2c_desktop.core.briefs.events import Brief, BriefRequest
from v2c_desktop.core.export.events import ExportReport, ExportRequest

pytestmark = pytest.mark.corpus


def test_a_comparison_brief_alone_brings_the_videos_its_cells_cite(tmp_path: Path) -> None:
    vault = tmp_path / "Vault"
    vault.mkdir()

    async def go() -> tuple[Brief, ExportReport]:
        api = await open_core(tmp_path, BriefWriter(context_window=200_000))
        try:
            await api.add([str(folder(tmp_path, MAKE))], collection="Memory")
            ids = tuple(v.id for v in await api.list_videos())
            _, brief = await build(
                api, BriefRequest(QUESTION, video_ids=ids, template="comparison")
            )
            report = await api.export_obsidian(ExportRequest(str(vault), brief_ids=(brief.id,)))
            return brief, report
        finally:
            await api.aclose()

    brief, report = run(go(), timeout=120)
    cited = {c.video_id for cs in brief.data_citations.values() for c in cs}
    assert cited and not [c for p in brief.points for c in [*p.support, *p.oppose]]
    videos = [n for n in report.notes if n.kind == "video"]
    assert {n.subject_id for n in videos} == cited
    (note,) = [n for n in report.notes if n.kind == "brief"]
    text = (vault / note.path).read_text(encoding="utf-8")
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["videos"] == [f"[[{videos[0].path[:-3]}]]"]
    assert f"[[{videos[0].path[:-3]}#^t-" in text  # each cell's citation links to its line
    index = (vault / "v2c/Index.md").read_text(encoding="utf-8")
    assert "## Memory\n" in index  # the library's collections group the index
