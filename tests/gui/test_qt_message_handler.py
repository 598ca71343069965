"""The test session's Qt message handler: what pytest-qt puts back after each test.

A Qt worker thread may be inside PySide's message trampoline, waiting for the GIL, when a
test ends; if pytest-qt then put back "no handler", PySide would clear its callable under
that thread, which then calls NULL (tests/support/qt_messages.py tells the whole story).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import qInstallMessageHandler, qWarning

from tests.support import qt_messages

pytestmark = pytest.mark.gui


def test_pytest_qt_puts_back_the_sessions_handler_not_none(request: pytest.FixtureRequest) -> None:
    capture = request.node.qt_log_capture  # pytest-qt's capture for this test
    assert capture._previous_handler is qt_messages._to_stderr


def test_the_sessions_handler_writes_what_qt_says_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    previous = qInstallMessageHandler(qt_messages._to_stderr)  # this test's capture, aside
    try:
        qWarning("No audio device detected")
    finally:
        qInstallMessageHandler(previous)
    assert capsys.readouterr().err == "No audio device detected\n"
