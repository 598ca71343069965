"""Printing results: human text by default, one JSON document with `--json`.

Results go to stdout, progress and errors to stderr, so `v2c ... --json | jq` always works.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.progress import Progress


def emit_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def emit_error(error: V2CError, as_json: bool) -> None:
    if as_json:
        emit_json(error.to_dict("cli"))
    print(f"error ({error.code}): {error.message}", file=sys.stderr)
    if error.hint:
        print(f"hint: {error.hint_for('cli')}", file=sys.stderr)


class StderrProgress:
    """Progress lines on stderr, but only once the work has taken over a second."""

    def __init__(self, delay: float = 1.0) -> None:
        self._started = time.monotonic()
        self._delay = delay
        self._last = ""

    def __call__(self, event: Progress) -> None:
        if time.monotonic() - self._started < self._delay:
            return
        total = f"/{event.total}" if event.total is not None else ""
        line = f"[{event.stage} {event.done}{total}] {event.message}"
        if line != self._last:
            print(line, file=sys.stderr, flush=True)
            self._last = line
