"""Driving the brief pane in tests: a collection, the form, a build, a citation click."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import anchors, click_text_link
from tests.gui.conftest import wait_for
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.videos import Collection
from v2c_desktop.ui.links import parse_seek_href
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.brief.pane import BriefPane

BUILD_TIMEOUT = 60000


def make_collection(qtbot: QtBot, core: CoreAPI, name: str, video_ids: list[str]) -> Collection:
    collection = wait_for(qtbot, core.create_collection(name))
    wait_for(qtbot, core.add_to_collection(collection.id, video_ids))
    return collection


def open_briefs(qtbot: QtBot, window: MainWindow, collections: int = 1) -> BriefPane:
    """Show the brief pane (Ctrl+B's action); wait until it knows collections and models."""
    window.actions_.brief.trigger()
    pane = window.brief_pane
    assert window.stack.currentWidget() is pane
    qtbot.waitUntil(lambda: pane.form.collection.count() == collections, timeout=30000)
    qtbot.waitUntil(lambda: "extractive" in pane.form.models.model_ids(), timeout=30000)
    return pane


def ask(qtbot: QtBot, pane: BriefPane, collection_id: str, question: str) -> None:
    """An extractive brief over a collection, typed as a person would."""
    form = pane.form
    form.choose_collection(collection_id)
    assert form.models.select("extractive")
    form.question.clear()
    qtbot.keyClicks(form.question, question)


def citation_links(pane: BriefPane) -> list[tuple[str, str, float]]:
    """(link text, video id, seconds) of every citation link the brief shows."""
    found = []
    for text, href in anchors(pane.view.text):
        target = parse_seek_href(href)
        if target is not None:
            found.append((text, *target))
    return found


def click_citation(qtbot: QtBot, pane: BriefPane, text: str) -> None:
    click_text_link(qtbot, pane.view.text, text)
