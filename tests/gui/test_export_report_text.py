"""What the export dialog says after an export: counts, then the notes a person must look at."""

from __future__ import annotations

from v2c_desktop.core.export.events import ExportedNote, ExportReport
from v2c_desktop.ui.panes.brief.export_dialog import report_text


def _note(path: str, action: str, **kw: object) -> ExportedNote:
    return ExportedNote("video", "youtube:x", path, action, **kw)  # type: ignore[arg-type]


def test_a_conflict_says_where_the_new_version_went_and_how_to_settle_it() -> None:
    report = ExportReport(
        "/v",
        "v2c",
        False,
        [
            _note("v2c/Videos/A.md", "conflict", beside="v2c/Videos/A (v2c update).md"),
            _note("v2c/Videos/B.md", "unchanged"),
        ],
    )
    text = report_text(report)
    assert text.splitlines()[0] == (
        "0 notes were created, 0 updated (your own text kept), 1 unchanged, 1 in conflict."
    )
    assert "conflict: v2c/Videos/A.md" in text
    assert "v2c's new version went to v2c/Videos/A (v2c update).md" in text
    assert "empty the part between the v2c markers" in text
    assert "delete the (v2c update) copy" in text


def test_a_copied_note_is_named_and_left_alone() -> None:
    report = ExportReport(
        "/v",
        "v2c",
        False,
        [_note("v2c/Videos/A.md", "updated", duplicates=("v2c/Videos/A copy.md",))],
    )
    text = report_text(report)
    assert "duplicated: v2c/Videos/A.md is the one v2c keeps up to date" in text
    assert "v2c/Videos/A copy.md (the same note copied) was left alone" in text
    assert "A conflict means" not in text
