"""Export to Obsidian from the brief pane (and the library): the vault is asked once and
remembered, the notes are written, "Open in Obsidian" opens the `obsidian://` link, and a
re-export after the user edited the part v2c writes reports the conflict, never overwrites."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl
from pytestqt.qtbot import QtBot

from tests.gui.brief_helpers import BUILD_TIMEOUT, choose, open_briefs, right_click, shown_menu
from tests.gui.conftest import HEADLESS_NOISE, wait_for
from tests.gui.player_helpers import recorder
from tests.gui.test_brief_pane import QUESTION, memory_collection
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.briefs.events import BriefDone, BriefRequest
from v2c_desktop.core.settings import load_settings
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.brief.export_dialog import ExportDialog

pytestmark = pytest.mark.gui

START = "%% v2c:start"


def built(qtbot: QtBot, core: CoreAPI, collection: str) -> str:
    async def build() -> str:
        request = BriefRequest(QUESTION, collection=collection, extractive=True)
        async for event in core.build_brief(request):
            if isinstance(event, BriefDone):
                return event.brief.id
        raise AssertionError("no brief")

    return wait_for(qtbot, build(), timeout=BUILD_TIMEOUT)


def export(qtbot: QtBot, dialog: ExportDialog) -> None:
    with qtbot.waitSignal(dialog.exported, timeout=30000):
        qtbot.mouseClick(dialog.export, Qt.MouseButton.LeftButton)


def test_export_writes_the_notes_and_a_re_export_after_an_edit_reports_the_conflict(
    qtbot: QtBot,
    crashcourse: CoreAPI,
    make_window: Callable[[CoreAPI], MainWindow],
    opened_urls: list[QUrl],
    tmp_path: Path,
) -> None:
    brief_id = built(qtbot, crashcourse, memory_collection(qtbot, crashcourse))
    window = make_window(crashcourse)
    window.open_url = recorder(opened_urls)  # how folders and Obsidian open (nothing opens)
    pane = open_briefs(qtbot, window)
    qtbot.waitUntil(lambda: pane.saved.ids() == [brief_id], timeout=10000)
    pane.saved.list.setCurrentRow(0)
    qtbot.waitUntil(lambda: pane.view.export.isEnabled(), timeout=10000)
    qtbot.mouseClick(pane.view.export, Qt.MouseButton.LeftButton)
    dialog = pane.findChild(ExportDialog, "exportDialog")
    assert dialog is not None and dialog.isVisible()
    assert dialog.vault.text() == "" and not dialog.export.isEnabled()  # asked the first time
    vault = tmp_path / "vault"
    vault.mkdir()
    dialog.vault.setText(str(vault))
    export(qtbot, dialog)
    report = dialog.report
    assert report is not None and not report.dry_run and not report.conflicts
    kinds = {n.kind for n in report.created}
    assert {"brief", "video", "index"} <= kinds
    for note in report.created:
        assert (vault / note.path).is_file(), note.path
    (brief_note,) = [n for n in report.created if n.kind == "brief"]
    assert brief_note.path.startswith("v2c/")
    assert dialog.summary.toPlainText().startswith(f"{len(report.created)} notes were created")
    # afterwards: Obsidian opens at the brief, the folder in the file manager
    qtbot.mouseClick(dialog.open_obsidian, Qt.MouseButton.LeftButton)
    assert opened_urls[-1].toString().startswith("obsidian://open?")
    assert opened_urls[-1].toString() == QUrl(report.open_link()).toString()
    qtbot.mouseClick(dialog.show_folder, Qt.MouseButton.LeftButton)
    assert opened_urls[-1] == QUrl.fromLocalFile(str(vault / "v2c"))
    # the vault edited afterwards: neither opens the old export as if it were the new vault
    elsewhere = tmp_path / "another vault"
    dialog.vault.setText(str(elsewhere))
    assert not dialog.open_obsidian.isEnabled() and not dialog.show_folder.isEnabled()
    opened = len(opened_urls)
    qtbot.mouseClick(dialog.open_obsidian, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.show_folder, Qt.MouseButton.LeftButton)
    assert len(opened_urls) == opened
    dialog.vault.setText(str(vault))  # back where the notes were written: both again
    assert dialog.open_obsidian.isEnabled() and dialog.show_folder.isEnabled()
    # the vault is remembered, in the settings file and in the window
    assert load_settings().export.vault == str(vault)
    assert window.settings.export.vault == str(vault)
    dialog.close()

    # the user edits inside the part v2c writes
    path = vault / brief_note.path
    lines = path.read_text(encoding="utf-8").split("\n")
    owned = next(i for i, line in enumerate(lines) if line.startswith(START))
    lines.insert(owned + 1, "My own words, written inside the markers.")
    edited = "\n".join(lines)
    path.write_text(edited, encoding="utf-8")

    again = pane.export_brief(brief_id)
    assert again.vault.text() == str(vault)  # not asked again
    with qtbot.waitSignal(again.export.clicked):
        qtbot.mouseClick(again.export, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: again.dry is not None, timeout=30000)
    dry = again.dry
    assert dry is not None and dry.dry_run
    assert [n.path for n in dry.conflicts] == [brief_note.path]
    assert f"conflict: {brief_note.path}" in again.summary.toPlainText()
    assert again.export.text() == "Write the notes"
    assert path.read_text(encoding="utf-8") == edited  # the look wrote nothing
    export(qtbot, again)
    assert again.report is not None
    (conflict,) = again.report.conflicts
    assert conflict.path == brief_note.path and conflict.beside
    assert path.read_text(encoding="utf-8") == edited  # never overwritten
    assert (vault / conflict.beside).is_file()
    assert f"v2c's new version went to {conflict.beside}" in again.summary.toPlainText()
    assert "you edited" in again.summary.toPlainText()
    again.close()


# a menu that pops up grabs the keyboard, which the offscreen platform plugin cannot do
@pytest.mark.qt_log_ignore(*HEADLESS_NOISE, r"^This plugin does not support grabbing the keyboard$")
def test_the_library_exports_a_collection_or_the_selected_videos(
    qtbot: QtBot,
    crashcourse: CoreAPI,
    make_window: Callable[[CoreAPI], MainWindow],
    tmp_path: Path,
) -> None:
    collection = memory_collection(qtbot, crashcourse)
    window = make_window(crashcourse)
    sidebar = window.library.sidebar
    qtbot.waitUntil(lambda: sidebar.collection(collection) is not None)
    sidebar.select(collection)
    right_click(qtbot, sidebar.list, sidebar.list.visualItemRect(sidebar.list.currentItem()))
    choose(shown_menu(qtbot), "Export to Obsidian…")
    dialog = window.brief_pane.findChild(ExportDialog, "exportDialog")
    assert dialog is not None and dialog.isVisible()
    assert dialog.collection == collection and dialog.video_ids == ()
    vault = tmp_path / "vault"
    vault.mkdir()
    dialog.vault.setText(str(vault))
    export(qtbot, dialog)
    assert dialog.report is not None
    videos = [n for n in dialog.report.created if n.kind == "video"]
    assert len(videos) == len(wait_for(qtbot, crashcourse.get_collection(collection)).video_ids)
    dialog.close()
    table = window.library.table
    qtbot.waitUntil(lambda: table.model.rowCount() == 10)
    table.select_ids([videos[0].subject_id])
    row = table.proxy.mapFromSource(table.model.index(table.model.row_of(videos[0].subject_id), 0))
    right_click(qtbot, table.view, table.view.visualRect(row))
    choose(shown_menu(qtbot), "Export to Obsidian…")
    picked = [
        d for d in window.brief_pane.findChildren(ExportDialog, "exportDialog") if d.isVisible()
    ]
    assert len(picked) == 1 and picked[0].video_ids == (videos[0].subject_id,)
    assert picked[0].collection is None
    assert picked[0].vault.text() == str(vault)  # remembered from the first export
    picked[0].close()
