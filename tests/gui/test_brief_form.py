"""The new-brief form and what can be done with a brief: the form's rows line up under
their labels; a brief over the library's selection or over a search's results reads those
videos; your own JSON Schema with a keyword the briefs cannot use says so and Build waits;
a build that fails ends visibly with its hint; Save as Markdown and as JSON write the brief."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QFormLayout, QLabel, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.brief_helpers import (
    BUILD_TIMEOUT,
    FORGET,
    MAKE,
    ask,
    make_collection,
    open_briefs,
    scripted_core,
)
from tests.gui.conftest import wait_for
from tests.gui.test_brief_pane import QUESTION, memory_collection
from tests.unit.briefs.scripted import BriefWriter
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.briefs.events import BriefRequest
from v2c_desktop.core.briefs.render import as_json, markdown
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.search.request import SearchRequest
from v2c_desktop.ui.dialogs import error_text
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.brief.form import SCHEMA, SEARCH, SELECTION
from v2c_desktop.ui.panes.brief.pane import BriefPane

pytestmark = pytest.mark.gui

MakeWindow = Callable[[CoreAPI], MainWindow]


@pytest.fixture
def model_core(
    crashcourse_file: Path, tmp_path: Path, qloop: asyncio.AbstractEventLoop, qtbot: QtBot
) -> Iterator[CoreAPI]:
    writer = BriefWriter(context_window=4096)
    yield from scripted_core(qtbot, crashcourse_file, tmp_path / "lib.duckdb", writer)


def built(qtbot: QtBot, pane: BriefPane) -> None:
    qtbot.waitUntil(pane.form.build.isEnabled, timeout=30000)
    with qtbot.waitSignal(pane.build_finished, timeout=BUILD_TIMEOUT) as finished:
        qtbot.mouseClick(pane.form.build, Qt.MouseButton.LeftButton)
    assert finished.args == ["done"], pane.progress.stage.text()


def read_ids(pane: BriefPane) -> set[str]:
    brief = pane.view.brief
    assert brief is not None
    return {c.video_id for c in brief.coverage}


def test_the_form_labels_its_rows_in_one_column(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    memory_collection(qtbot, crashcourse)
    pane = open_briefs(qtbot, make_window(crashcourse))
    form = pane.form
    (layout,) = [f for f in form.findChildren(QFormLayout)]
    rows = {}
    for row in range(layout.rowCount()):
        label = layout.itemAt(row, QFormLayout.ItemRole.LabelRole)
        field = layout.itemAt(row, QFormLayout.ItemRole.FieldRole)
        assert label is not None and field is not None, row
        text = label.widget().text()
        rows[text] = field.widget() or field.layout()
    assert list(rows) == ["Scope:", "Question:", "Template:", "Model:", "Estimate:"]
    assert rows["Model:"] is form.models and not form.models.label.isVisible()
    # every field starts at the same x: the model's combo lines up with the question's box
    x = form.question.mapTo(form, form.question.rect().topLeft()).x()
    assert form.models.combo.mapTo(form, form.models.combo.rect().topLeft()).x() == x
    assert form.scope_kind.mapTo(form, form.scope_kind.rect().topLeft()).x() == x
    assert form.template.mapTo(form, form.template.rect().topLeft()).x() == x
    visible = [w.text() for w in form.findChildren(QLabel) if w.isVisible() and w.text()]
    assert "Model:" in visible and "Brief:" not in visible


def test_a_brief_over_the_videos_selected_in_the_library(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    table = window.library.table
    qtbot.waitUntil(lambda: table.model.rowCount() == 10, timeout=30000)
    clicks = [(MAKE, Qt.KeyboardModifier.NoModifier), (FORGET, Qt.KeyboardModifier.ControlModifier)]
    for video_id, held in clicks:  # a click, then a Ctrl+click
        row = table.proxy.mapFromSource(table.model.index(table.model.row_of(video_id), 0))
        rect = table.view.visualRect(row)
        qtbot.mouseClick(table.view.viewport(), Qt.MouseButton.LeftButton, held, rect.center())
    assert set(table.selected_ids()) == {MAKE, FORGET}
    pane = open_briefs(qtbot, window, collections=0)
    form = pane.form
    form.scope_kind.setCurrentIndex(form.scope_kind.findData(SELECTION))
    assert form.selection.isVisible() and form.selection.text() == "2 selected"
    assert not form.collection.isVisible()
    assert form.models.select("extractive")
    qtbot.keyClicks(form.question, QUESTION)
    qtbot.waitUntil(lambda: form.estimate is not None and form.estimate.videos == 2, timeout=30000)
    built(qtbot, pane)
    assert read_ids(pane) == {MAKE, FORGET}
    brief = pane.view.brief
    assert brief is not None and sorted(brief.scope["video_ids"]) == sorted([MAKE, FORGET])
    qtbot.waitUntil(lambda: pane.saved.list.count() == 1, timeout=10000)
    assert "· 2 videos ·" in pane.saved.list.item(0).text()


def test_a_brief_over_the_videos_a_search_finds(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    found = wait_for(qtbot, crashcourse.search(SearchRequest("homunculus", limit=50)))
    expected = set(dict.fromkeys(h.video_id for h in found.hits))
    assert 1 <= len(expected) < 10  # a search that picks some videos, not all
    pane = open_briefs(qtbot, make_window(crashcourse), collections=0)
    form = pane.form
    form.scope_kind.setCurrentIndex(form.scope_kind.findData(SEARCH))
    assert form.search.isVisible()
    assert not form.build.isEnabled()  # no words yet
    qtbot.keyClicks(form.search, "homunculus")
    assert form.models.select("extractive")
    qtbot.keyClicks(form.question, "What is the sensory homunculus?")
    qtbot.waitUntil(
        lambda: form.estimate is not None and form.estimate.videos == len(expected), timeout=30000
    )
    built(qtbot, pane)
    assert read_ids(pane) == expected
    qtbot.waitUntil(lambda: pane.saved.list.count() == 1, timeout=10000)
    assert "search “homunculus”" in pane.saved.list.item(0).text()


def choose_schema(qtbot: QtBot, pane: BriefPane, path: Path) -> None:
    """Pick "My JSON Schema…" in the template box, then the file in the dialog it opens."""
    form = pane.form
    index = form.template.findData(SCHEMA)
    form.template.setCurrentIndex(index)
    form.template.activated.emit(index)  # what choosing the entry with the mouse sends
    dialog = form.findChild(QFileDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.selectFile(str(path))
    dialog.accept()


def test_a_schema_keyword_the_briefs_cannot_use_is_named_and_build_waits(
    qtbot: QtBot, model_core: CoreAPI, make_window: MakeWindow, tmp_path: Path
) -> None:
    collection = make_collection(qtbot, model_core, "Memory", [MAKE, FORGET])
    pane = open_briefs(qtbot, make_window(model_core))
    form = pane.form
    ask(qtbot, pane, collection.id, QUESTION, model="")  # Automatic: the scripted writer
    qtbot.waitUntil(lambda: form.estimate is not None, timeout=30000)
    bad = tmp_path / "answer.json"
    bad.write_text(
        json.dumps({"type": "object", "oneOf": [{"required": ["a"]}, {"required": ["b"]}]})
    )
    shown = form.estimates
    choose_schema(qtbot, pane, bad)
    qtbot.waitUntil(lambda: form.estimates > shown, timeout=30000)
    said = form.estimate_label.text()
    assert "your JSON Schema cannot be used: the keyword 'oneOf' is not supported" in said
    assert "use only type, properties" in said  # the hint: what it can use
    assert form.schema_label.text() == "answer.json"
    assert not form.build.isEnabled()
    qtbot.keyClicks(form.question, " today")  # a new question does not make it usable
    assert not form.build.isEnabled()
    form.start()  # Enter in the question box: nothing starts
    assert not pane.busy()
    # a schema it can use: Build again
    good = tmp_path / "facts.json"
    good.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {"facts": {"type": "array", "items": {"type": "string"}}},
            }
        )
    )
    shown = form.estimates
    choose_schema(qtbot, pane, good)
    qtbot.waitUntil(lambda: form.estimates > shown, timeout=30000)
    assert form.estimate is not None and form.build.isEnabled()
    assert form.schema_label.text() == "facts.json"


def test_a_build_that_fails_ends_visibly_with_its_hint(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    collection = memory_collection(qtbot, crashcourse)
    window = make_window(crashcourse)
    pane = open_briefs(qtbot, window)
    ask(qtbot, pane, collection, QUESTION)
    built(qtbot, pane)
    brief = pane.view.brief
    assert brief is not None
    qtbot.waitUntil(lambda: pane.saved.ids() == [brief.id], timeout=10000)
    # the collection is emptied meanwhile: re-running the brief cannot work
    videos = wait_for(qtbot, crashcourse.get_collection(collection)).video_ids
    wait_for(qtbot, crashcourse.remove_from_collection(collection, list(videos)))

    async def refused() -> V2CError:
        try:
            async for _event in crashcourse.build_brief(BriefRequest("", rerun=brief.id)):
                pass
        except V2CError as error:
            return error
        raise AssertionError("the re-run did not fail")

    error = wait_for(qtbot, refused())
    assert error.hint_for("app")
    pane.saved.list.setCurrentRow(0)
    qtbot.waitUntil(pane.saved.rerun.isEnabled)
    with qtbot.waitSignal(pane.build_finished, timeout=BUILD_TIMEOUT) as finished:
        qtbot.mouseClick(pane.saved.rerun, Qt.MouseButton.LeftButton)
    assert finished.args == ["error"]
    said = pane.progress.stage.text()
    assert said == f"Failed: {error_text(error.message, error.hint_for('app'))}"
    assert "select videos in the Library" in said  # worded for the app, not the CLI
    assert "v2c " not in said and "`" not in said and "--" not in said
    assert pane.progress.isVisible() and pane.progress.stage.isVisible()
    assert not pane.progress.bar.isVisible()  # no full bar beside a failure
    assert not pane.progress.cancel.isEnabled()
    assert pane.saved.ids() == [brief.id]  # the saved brief is as it was
    assert wait_for(qtbot, crashcourse.get_brief(brief.id)).topics == brief.topics


def test_the_pane_words_a_briefs_hints_for_the_app_not_the_command_line(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    """An empty collection's estimate and a build over a collection deleted meanwhile end
    with hints that point into the app (the Library), never at a `v2c` command."""
    empty = wait_for(qtbot, crashcourse.create_collection("Empty"))
    gone = wait_for(qtbot, crashcourse.create_collection("Gone"))
    window = make_window(crashcourse)
    pane = open_briefs(qtbot, window, collections=2)
    ask(qtbot, pane, empty.id, QUESTION)
    label = pane.form.estimate_label
    qtbot.waitUntil(lambda: label.text().startswith("no videos to brief"), timeout=30000)
    assert "choose a collection that holds videos, select videos in the Library" in label.text()
    assert "v2c " not in label.text() and "`" not in label.text()
    assert not pane.form.build.isEnabled()  # a build would be refused the same way

    wait_for(qtbot, crashcourse.delete_collection(gone.id))
    with qtbot.waitSignal(pane.build_finished, timeout=BUILD_TIMEOUT) as finished:
        pane.build(BriefRequest(QUESTION, collection=gone.id, extractive=True))
    assert finished.args == ["error"]
    said = pane.progress.stage.text()
    assert said.startswith("Failed: ") and "choose one of the collections the Library lists" in said
    assert "v2c " not in said and "`" not in said


def save_through_dialog(qtbot: QtBot, pane: BriefPane, button: QWidget, path: Path) -> QFileDialog:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = pane.view.findChild(QFileDialog)
    assert dialog is not None and dialog.isVisible()
    suggested = dialog.selectedFiles()
    dialog.selectFile(str(path))
    with qtbot.waitSignal(pane.view.message):
        dialog.accept()
    qtbot.waitUntil(lambda: pane.view.findChild(QFileDialog) is None)  # closed, deleted
    return suggested  # type: ignore[return-value]


def test_save_as_markdown_and_as_json_write_the_brief(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow, tmp_path: Path
) -> None:
    collection = memory_collection(qtbot, crashcourse)
    pane = open_briefs(qtbot, make_window(crashcourse))
    ask(qtbot, pane, collection, QUESTION)
    built(qtbot, pane)
    brief = pane.view.brief
    assert brief is not None
    md = tmp_path / "out" / "memory.md"
    md.parent.mkdir()
    suggested = save_through_dialog(qtbot, pane, pane.view.save_md, md)
    assert [Path(p).name for p in suggested] == ["How are memories stored and forgotten_.md"]
    text = md.read_text(encoding="utf-8")
    assert text == markdown(brief)
    assert text.startswith(f"# {brief.title}") and "## Bottom line" in text
    assert pane.status.text() == f"Saved {md}."
    js = tmp_path / "out" / "memory.json"
    save_through_dialog(qtbot, pane, pane.view.save_json, js)
    data = json.loads(js.read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(as_json(brief)))
    assert data["id"] == brief.id and data["markdown"] == text
    assert pane.status.text() == f"Saved {js}."
