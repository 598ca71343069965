"""Export to Notion from the library: the dialog over the real core, the Notion API's page
endpoints on 127.0.0.1 (tests/support/notion_api.py)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import HOMUNCULUS
from tests.support.notion_api import PARENT, TOKEN, NotionApi, notion_api
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.settings import load_settings
from v2c_desktop.ui.main_window import MainWindow

pytestmark = pytest.mark.gui


@pytest.fixture
def api() -> Iterator[NotionApi]:
    with notion_api() as served:
        path = Path(os.environ["V2C_HOME"]) / "config" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"notion": {"api_url": served.url}}), encoding="utf-8")
        yield served


def test_export_to_notion_asks_the_page_and_token_once_and_lists_the_pages(
    qtbot: QtBot,
    crashcourse: CoreAPI,
    make_window: Callable[[CoreAPI], MainWindow],
    opened_urls: list[QUrl],
    api: NotionApi,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NOTION_TOKEN", raising=False)
    window = make_window(crashcourse)
    window.settings = load_settings()  # as the app starts: the file's settings
    window.open_url = opened_urls.append  # type: ignore[method-assign,assignment]
    dialog = window.export_to_notion([HOMUNCULUS], "")
    assert dialog.isVisible() and not dialog.export.isEnabled()  # no page yet
    assert "Connections" in dialog.summary.placeholderText()  # how to share the page

    dialog.page.setText(f"https://www.notion.so/Research-{PARENT}")
    dialog.token.setText("ntn_not_the_right_one")
    dialog.export.click()
    qtbot.waitUntil(lambda: "refused the token" in dialog.summary.toPlainText(), timeout=20000)
    assert "Export to Notion… → Token" in dialog.summary.toPlainText()  # the app's own words
    assert load_settings().notion.token is None  # a token that failed is not kept

    dialog.token.setText(TOKEN)
    dialog.export.click()
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=20000)
    assert dialog.summary.toPlainText().startswith("Pages: 1 created.")
    (page,) = api.children_of(PARENT)
    assert page.title == "Homunculus: Crash Course Psychology #6"
    saved = load_settings().notion
    assert (saved.token, saved.parent_page) == (TOKEN, f"https://www.notion.so/Research-{PARENT}")
    assert dialog.token.text() == "" and "set" in dialog.token.placeholderText()
    assert window.settings.notion.token == TOKEN  # a later settings save keeps it
    dialog.open_notion.click()
    assert opened_urls[-1].toString().startswith("https://www.notion.so/")

    again = window.export_to_notion([HOMUNCULUS], "")  # remembered: nothing to type
    assert again.page.text().endswith(PARENT) and again.export.isEnabled()
    again.export.click()
    qtbot.waitUntil(lambda: again.report is not None, timeout=20000)
    assert again.summary.toPlainText().startswith("Pages: 1 already there.")
    assert len(api.pages) == 1
