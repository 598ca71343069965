"""The MCP server over HTTP, started by the app: `v2c mcp --http 127.0.0.1:PORT` as a child.

A child process keeps the MCP SDK and its web server out of the app, and the server is the
same one `v2c mcp --http` runs: it is a client of this app's library owner, so agents over
HTTP see the library the window shows. `QProcess` starts it without waiting; its first line
on stdout (`--json`) is `{"url": ...}` once it answers. A server that exits first (a port in
use) leaves its error object on stdout, which becomes the message and hint to show.

It is started with `--exit-with-stdin`: if the app dies, the end of that pipe stops the
server, so no server outlives the app and keeps the port. `aclose` stops it when the app
quits (the end of stdin, then SIGTERM, then a kill if it will not go).
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QProcess, Signal

from .settings.mcp_config import v2c_executable

log = logging.getLogger(__name__)
STOPPED, STARTING, RUNNING, FAILED = "stopped", "starting", "running", "failed"
STOP_WAIT_S = 5.0
START_HINT = "check that the v2c command is installed beside the app"


class HttpServer(QObject):
    """One `v2c mcp --http` child for the app's library.

    Signals:
        changed(): the state, the URL or the error changed.
    """

    changed = Signal()

    def __init__(
        self, library: Path, command: list[str] | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.library = library
        self.command = command or [str(v2c_executable())]
        self.state = STOPPED
        self.url = ""
        self.error: tuple[str, str] | None = None  # message, hint
        self._process: QProcess | None = None
        self._out = b""
        self._err = b""
        self._stopping = False

    def start(self, port: int) -> None:
        """Start the server on 127.0.0.1:`port` (0: any free port), unless one runs."""
        if self._process is not None:
            return
        process = QProcess(self)
        process.setProgram(self.command[0])
        process.setArguments(
            [
                *self.command[1:],
                "mcp",
                "--http",
                f"127.0.0.1:{port}",
                "--json",
                "--exit-with-stdin",
                "--library",
                str(self.library),
            ]
        )
        process.readyReadStandardOutput.connect(self._read_stdout)
        process.readyReadStandardError.connect(self._read_stderr)
        process.finished.connect(self._finished)
        process.errorOccurred.connect(self._error)
        self._process, self._out, self._err, self._stopping = process, b"", b"", False
        self._set(STARTING, "", None)
        process.start()

    def stop(self) -> None:
        """Ask the server to stop (it finishes open requests for a few seconds)."""
        process = self._process
        if process is None:
            return
        self._stopping = True
        process.closeWriteChannel()  # the end of stdin: it shuts down gracefully
        process.terminate()

    async def aclose(self) -> None:
        """Stop the server and wait until it has exited (killed after a few seconds)."""
        process = self._process
        if process is None:
            return
        done = asyncio.Event()
        process.finished.connect(lambda *_: done.set())
        self.stop()
        try:
            await asyncio.wait_for(done.wait(), STOP_WAIT_S)
        except TimeoutError:
            log.warning("the MCP HTTP server did not stop in time: killing it")
            process.kill()
            try:
                await asyncio.wait_for(done.wait(), STOP_WAIT_S)
            except TimeoutError:
                log.warning("the MCP HTTP server did not exit after a kill")

    # -- the child's output ----------------------------------------------------------------
    def _read_stdout(self) -> None:
        if self._process is None:
            return
        self._out += bytes(self._process.readAllStandardOutput().data())
        if self.state != STARTING:
            return
        for line in self._out.splitlines():
            ready = _json(line)
            if isinstance(ready, dict) and isinstance(ready.get("url"), str):
                self._set(RUNNING, ready["url"], None)
                return

    def _read_stderr(self) -> None:
        if self._process is not None:
            self._err = (self._err + bytes(self._process.readAllStandardError().data()))[-4000:]

    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self._process = None
            self._set(FAILED, "", (f"could not run {self.command[0]}", START_HINT))

    def _finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        self._read_stdout()
        self._process = None
        if self._stopping:
            self._set(STOPPED, "", None)
            return
        self._set(FAILED, "", self._failure(code))

    def _failure(self, code: int) -> tuple[str, str]:
        """The error object the server printed, else its last line on stderr."""
        text = self._out.decode("utf-8", "replace")
        body = _json(text[text.find("{") :].encode()) if "{" in text else None
        if isinstance(body, dict) and isinstance(body.get("message"), str):
            return body["message"], str(body.get("hint") or "")
        lines = self._err.decode("utf-8", "replace").strip().splitlines()
        last = lines[-1] if lines else f"the server exited (status {code})"
        return last, "see the message above; `v2c mcp --http 127.0.0.1:PORT` says more"

    def _set(self, state: str, url: str, error: tuple[str, str] | None) -> None:
        self.state, self.url, self.error = state, url, error
        self.changed.emit()


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None
