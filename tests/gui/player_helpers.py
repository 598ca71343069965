"""Media and docks for the player and reader tests: a long talk, a subtitle file alone."""

from __future__ import annotations

import wave
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from pytestqt.qtbot import QtBot

from tests.gui.conftest import _srt, offline_backend, wait_for
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.player.dock import PlayerDock

#: What the long talk says at 150 s (line 75 of 2-second lines).
QUOTED_LINE = 75


def talk_line(index: int, name: str = "long") -> str:
    if index == QUOTED_LINE:
        return "Photosynthesis turns the light into sugar, and the plant grows."
    return f"This is line {index} of a talk about plants ({name})."


def write_wav(path: Path, seconds: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(4000)
        out.writeframes(b"\x80" * 4000 * seconds)
    return path


def long_talk(folder: Path, name: str = "long", seconds: int = 300) -> tuple[Path, Path]:
    """`<name>.wav` and `<name>.en.srt` with one 2-second line every 2 seconds."""
    media = write_wav(folder / f"{name}.wav", seconds)
    cues = [
        f"{i + 1}\n{_srt(i * 2)} --> {_srt(i * 2 + 2)}\n{talk_line(i, name)}\n"
        for i in range(seconds // 2)
    ]
    srt = folder / f"{name}.en.srt"
    srt.write_text("\n".join(cues), encoding="utf-8")
    return media, srt


def subtitles_alone(
    qtbot: QtBot, core: CoreAPI, folder: Path, name: str = "long"
) -> tuple[str, Path]:
    """A long talk imported from its subtitle file with no media beside it: (id, media path
    the media would have)."""
    media, srt = long_talk(folder, name)
    media.unlink()
    (video_id,) = wait_for(qtbot, core.add([str(srt)])).changed_ids
    return video_id, media


def recorder(opened: list[QUrl]) -> Callable[[QUrl], bool]:
    """Stands in for QDesktopServices.openUrl: remembers the URL, opens nothing."""

    def open_url(url: QUrl) -> bool:
        opened.append(url)
        return True

    return open_url


def make_dock(
    qtbot: QtBot,
    runner: JobRunner,
    api: CoreAPI,
    opened: list[QUrl] | None = None,
    *,
    webengine: bool | None = None,
) -> PlayerDock:
    dock = PlayerDock(
        runner,
        api.get_video,
        set_media=api.set_media,
        backend_factory=offline_backend,
        open_url=recorder(opened if opened is not None else []),
        webengine=webengine,
    )
    qtbot.addWidget(dock)
    dock.resize(420, 600)
    dock.show()
    return dock
