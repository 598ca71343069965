"""Untrusted local files and caption downloads (issue 22): they cannot hang, exhaust or leak.

Real files throughout: named pipes (`os.mkfifo`), a sparse 2 GB subtitle file, JSON nested
100,000 deep, a private key named `.txt`, and caption streams through httpx's MockTransport.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from v2c_desktop.core.captions import read_captions
from v2c_desktop.core.domain.imports import BatchResult, ImportOutcome
from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.file_kinds import SUBTITLE_MAX_BYTES, WEB_CAPTION_MAX_BYTES
from v2c_desktop.core.importers import inputs as inputs_module
from v2c_desktop.core.importers.web.fetch import fetch_caption
from v2c_desktop.core.library import Library
from v2c_desktop.core.store import open_library

T = TypeVar("T")

GOOD_SRT = "1\n00:00:01,000 --> 00:00:03,000\nA perfectly good caption.\n"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


def good_file(tmp_path: Path, name: str = "good.srt") -> Path:
    folder = tmp_path / "good"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(GOOD_SRT, encoding="utf-8")
    return path


def with_library(tmp_path: Path, work: Callable[[Library], Any]) -> Any:
    async def go() -> Any:
        store = open_library(tmp_path / "lib.duckdb")
        library = Library(store)
        try:
            return await work(library)
        finally:
            await library.aclose()
            store.close()

    return asyncio.run(go())


def add(tmp_path: Path, inputs: list[Path | str]) -> BatchResult:
    result: BatchResult = with_library(tmp_path, lambda lib: lib.add([str(i) for i in inputs]))
    return result


def outcome_for(result: BatchResult, path: Path) -> ImportOutcome:
    return next(o for o in result.outcomes if o.source == str(path))


def bounded(work: Callable[[], T], pipes: list[Path], seconds: float = 30) -> T:
    """`work()` in a thread; if it is still blocked after `seconds`, open the pipes' writing
    ends (so the blocked reader gets EOF and the test can end) and fail."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for pipe in pipes:
            with contextlib.suppress(OSError):  # no reader left: nothing to unblock
                os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(10)
        pytest.fail(f"the import hung on a named pipe for {seconds} s")
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value


def assert_failed_cleanly(outcome: ImportOutcome, *words: str) -> V2CError:
    assert outcome.status == "failed"
    assert outcome.error is not None and outcome.error.hint
    for word in words:
        assert word in outcome.error.message
    return outcome.error


# -- 1. local paths that hang or exhaust -------------------------------------------------------


@needs_fifo
def test_a_pipe_named_txt_fails_its_item_and_never_hangs(tmp_path: Path) -> None:
    pipe = tmp_path / "x.txt"
    os.mkfifo(pipe)
    good = good_file(tmp_path)
    result = bounded(lambda: add(tmp_path, [pipe, good]), [pipe])
    assert_failed_cleanly(outcome_for(result, pipe), "x.txt", "not a regular file", "pipe")
    assert outcome_for(result, good).status == "added"


@needs_fifo
def test_a_pipe_named_srt_fails_its_item_with_a_clear_message(tmp_path: Path) -> None:
    pipe = tmp_path / "x.srt"
    os.mkfifo(pipe)
    good = good_file(tmp_path)
    result = bounded(lambda: add(tmp_path, [pipe, good]), [pipe])
    assert_failed_cleanly(outcome_for(result, pipe), "x.srt", "not a regular file", "pipe")
    assert outcome_for(result, good).status == "added"


def test_a_sparse_2_gb_srt_is_refused_by_its_size_without_reading_it(tmp_path: Path) -> None:
    big = tmp_path / "big.srt"
    with big.open("wb") as handle:
        handle.write(GOOD_SRT.encode())
        handle.truncate(2 * 1024**3)  # sparse: no disk, and 2 GB to anyone who reads it
    good = good_file(tmp_path)
    result = add(tmp_path, [big, good])  # refused by its size: the message says both
    error = assert_failed_cleanly(outcome_for(result, big), "big.srt", "2.0 GB", "50 MB")
    assert error.details["max_bytes"] == SUBTITLE_MAX_BYTES
    assert outcome_for(result, good).status == "added"


def test_a_url_list_over_its_cap_is_refused(tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    with urls.open("wb") as handle:
        handle.write(b"https://youtu.be/fxZWtc0mYpQ\n")
        handle.truncate(6 * 1024**2)
    result = add(tmp_path, [urls])
    assert_failed_cleanly(outcome_for(result, urls), "urls.txt", "6 MB", "5 MB")


def _stream(chunks: Callable[[], AsyncIterator[bytes]]) -> httpx.MockTransport:
    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/vtt"}, content=chunks())

    return httpx.MockTransport(serve)


def _fetch(transport: httpx.MockTransport, **limits: float) -> str:
    async def run() -> str:
        async with httpx.AsyncClient(transport=transport) as http:
            return await fetch_caption(http, "https://example.com/subs.vtt", timeout=5, **limits)

    return asyncio.run(run())


def test_a_caption_download_that_never_ends_is_stopped_by_its_deadline() -> None:
    async def trickle() -> AsyncIterator[bytes]:
        yield b"WEBVTT\n\n"
        while True:  # a byte now and then: no single read ever times out
            await asyncio.sleep(0.05)
            yield b"a"

    with pytest.raises(V2CError) as caught:  # without the deadline this never returns
        _fetch(_stream(trickle), deadline=0.5)
    assert caught.value.code == "upstream"
    assert "took longer than 0.5 s" in caught.value.message and caught.value.hint


def test_a_caption_download_larger_than_the_cap_fails() -> None:
    sent = 0

    async def flood() -> AsyncIterator[bytes]:
        nonlocal sent
        yield b"WEBVTT\n\n"
        for _ in range(WEB_CAPTION_MAX_BYTES // (1 << 20) + 10):  # 10 MB over the cap
            sent += 1 << 20
            yield b"a" * (1 << 20)

    with pytest.raises(V2CError) as caught:
        _fetch(_stream(flood))
    assert "may be at most 50 MB" in caught.value.message and caught.value.hint
    assert sent <= WEB_CAPTION_MAX_BYTES + (1 << 20)  # it stopped reading at the cap


def test_a_caption_download_declaring_too_many_bytes_is_refused_unread() -> None:
    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-length": str(420 * 1024**2)}, content=b"WEBVTT\n\n"
        )

    with pytest.raises(V2CError) as caught:
        _fetch(httpx.MockTransport(serve))
    assert "420 MB" in caught.value.message


# -- 2. deep JSON and any other exception: that item fails, the batch goes on -------------------


def test_a_deeply_nested_info_json_fails_its_item_and_the_batch_goes_on(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / "deep.info.json").write_text("[" * 100_000, encoding="utf-8")
    (archive / "deep.en.srt").write_text(GOOD_SRT, encoding="utf-8")
    good = good_file(tmp_path)
    result = add(tmp_path, [archive, good])
    deep = next(o for o in result.outcomes if o.source.endswith("deep.en.srt"))
    assert_failed_cleanly(deep, "deep.info.json", "nested too deeply")
    assert outcome_for(result, good).status == "added"


def test_deeply_nested_json3_captions_fail_as_broken_captions(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json3"
    deep.write_text('{"events": ' + "[" * 100_000, encoding="utf-8")
    good = good_file(tmp_path)
    result = add(tmp_path, [deep, good])
    assert_failed_cleanly(outcome_for(result, deep), "deep.json3", "nested too deeply")
    assert outcome_for(result, good).status == "added"
    with pytest.raises(V2CError):
        read_captions('{"events": ' + "[" * 100_000, "json3")


@pytest.mark.parametrize("error", [KeyError("x"), ZeroDivisionError(), RecursionError()])
def test_any_exception_in_one_item_becomes_its_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    import v2c_desktop.core.library as library_module

    real = library_module.read_or_transcribe
    bad = good_file(tmp_path, "bad.srt")
    good = good_file(tmp_path)

    async def read_or_transcribe(library: Any, item: Any, *args: Any, **kwargs: Any) -> Any:
        if item.subtitles[0][0] == bad:
            raise error
        return await real(library, item, *args, **kwargs)

    monkeypatch.setattr(library_module, "read_or_transcribe", read_or_transcribe)
    result = add(tmp_path, [bad, good])
    failed = assert_failed_cleanly(outcome_for(result, bad), "bad.srt")
    assert failed.code == "internal"
    assert outcome_for(result, good).status == "added"


def test_any_exception_while_planning_one_input_becomes_its_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = inputs_module.item_for_file
    bad = good_file(tmp_path, "bad.srt")
    good = good_file(tmp_path)

    def item_for_file(path: Path) -> Any:
        if path == bad:
            raise IndexError("boom")
        return real(path)

    monkeypatch.setattr(inputs_module, "item_for_file", item_for_file)
    result = add(tmp_path, [bad, good])
    failed = assert_failed_cleanly(outcome_for(result, bad), "bad.srt", "IndexError")
    assert "boom" not in failed.message
    assert outcome_for(result, good).status == "added"


# -- 3. errors never echo a file that was not recognised ----------------------------------------

PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)
SECRETS = ("BEGIN", "OPENSSH", "PRIVATE", "b3BlbnNz", "hunter2", "password")


def assert_no_secret(error: V2CError) -> None:
    shown = f"{error.message}\n{error.hint}\n{json.dumps(error.details)}"
    for secret in SECRETS:
        assert secret not in shown


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("id_ed25519.txt", PRIVATE_KEY, 1),
        ("notes.list", "password: hunter2\n", 1),
        ("later.urls", "# mine\nhttps://youtu.be/fxZWtc0mYpQ\n\npassword: hunter2\n", 4),
    ],
)
def test_a_text_file_that_is_not_a_url_list_is_named_not_echoed(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = add(tmp_path, [path])
    error = assert_failed_cleanly(outcome_for(result, path), name, f"line {line}")
    assert_no_secret(error)


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("key.srt", PRIVATE_KEY, 1),
        ("pw.srt", "\npassword: hunter2\nmore: hunter2\n", 2),
        ("pw.vtt", "WEBVTT\n\npassword: hunter2\n\nalso hunter2\n", 3),
        ("timing.vtt", "WEBVTT\n\n00:00:01.000 --> hunter2\npassword\n", 3),
    ],
)
def test_a_subtitle_parse_error_names_file_and_line_not_content(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = add(tmp_path, [path])
    error = assert_failed_cleanly(outcome_for(result, path), name, f"line {line}")
    assert_no_secret(error)


# -- 4. control characters are stripped on import -----------------------------------------------

OSC52 = "\x1b]52;c;SGVsbG8gd29ybGQ=\x07"
OSC8 = "\x1b]8;;https://evil.example/\x1b\\"
CLEAR = "\x1b[2J"


def test_control_characters_are_stripped_from_captions_and_metadata(tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    info = {
        "id": "fxZWtc0mYpQ",
        "extractor": "youtube",
        "extractor_key": "Youtube",
        "title": f"{OSC8}Click me{OSC8} {CLEAR}now\x9b31m",
        "channel": f"Chan{OSC52}nel\x07",
        "description": f"line one\n{CLEAR}line\ttwo\r\x00",
        "webpage_url": "https://www.youtube.com/watch?v=fxZWtc0mYpQ",
        "chapters": [{"start_time": 0, "title": f"{CLEAR}Intro{OSC52}"}],
    }
    (archive / "talk.info.json").write_text(json.dumps(info), encoding="utf-8")
    # enough plain cues around them that the file is not refused as binary data
    filler = "".join(
        f"{n}\n00:00:{n:02},000 --> 00:00:{n:02},500\nPlain caption number {n}.\n\n"
        for n in range(10, 30)
    )
    (archive / "talk.en.srt").write_text(
        f"1\n00:00:01,000 --> 00:00:03,000\nHello {OSC52}world{CLEAR}\n\n"
        f"2\n00:00:04,000 --> 00:00:05,000\n{OSC8}link{OSC8}\x9d0;title\x9c end\n\n{filler}",
        encoding="utf-8",
    )
    plain = tmp_path / f"evil{CLEAR}name.srt"
    plain.write_text("1\n00:00:01,000 --> 00:00:02,000\n\x1b[31mRed\x1b[0m text\n", "utf-8")

    async def work(library: Library) -> tuple[BatchResult, list[VideoRecord]]:
        result = await library.add([str(archive), str(plain)])
        ids = [o.video_id for o in result.outcomes if o.video_id]
        return result, [await library.get_video(vid) for vid in ids]

    result, records = with_library(tmp_path, work)
    assert [o.status for o in result.outcomes] == ["added", "added"]
    web, local = records
    assert web.video.title == "Click me now"
    assert web.video.channel == "Channel"
    assert web.video.description == "line one\nline\ttwo"
    assert [c.title for c in web.chapters] == ["Intro"]
    assert [s.text for s in web.transcript.segments][:2] == ["Hello world", "link end"]
    assert [s.text for s in local.transcript.segments] == ["Red text"]
    for record in records:
        shown = [record.video.title, record.video.channel, record.video.description]
        shown += [s.text for s in record.transcript.segments]
        shown += [record.transcript.track_name or "", record.transcript.producer or ""]
        shown += [c.title for c in record.chapters]
        for text in shown:
            assert not CONTROL.search(text), repr(text)
