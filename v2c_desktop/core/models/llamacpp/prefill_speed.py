"""How fast this machine reads prompts with one local model, measured as it answers.

A local answer's first word waits for the prompt's prefill, so how many tokens of sources
a local model may read is a question of speed: the same 600 tokens take four seconds with
the 135M test model on two cores and about a minute with a 3B model. The rate depends on
the CPU, the threads and the model, so it is measured from the answers themselves (prompt
tokens evaluated over the time to the first token, an exponential average) and kept in a
small JSON file beside the saved prompt states, per model file. Before the first
measurement it is estimated from the file's size: prefill is compute-bound, about linear
in the weights (150 tokens/s for the 98 MB SmolLM2 file, measured on these machines).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from pathlib import Path

log = logging.getLogger("v2c_desktop.core.models.llamacpp")

REFERENCE_BYTES = 98_000_000
REFERENCE_RATE = 150.0
"""SmolLM2-135M Q4_1 (98 MB) reads ~150-200 prompt tokens/s on 2 cores (STACK-NOTES)."""
MIN_MEASURED_TOKENS = 64
"""A prompt shorter than this (a follow-up's new turn) measures overhead, not speed."""
SMOOTHING = 0.3
FILE = "prefill-speed.json"


class PrefillSpeed:
    """The measured prompt-reading rate of one model file, persisted across runs."""

    def __init__(self, directory: Path, identity: str, model_bytes: int) -> None:
        self.path = Path(directory) / FILE
        self.identity = identity
        self.estimate = REFERENCE_RATE * REFERENCE_BYTES / max(model_bytes, REFERENCE_BYTES)
        self._lock = threading.Lock()
        self._rate: float | None = self._read().get(identity)
        self._startup = self._rate

    @property
    def measured(self) -> bool:
        return self._startup is not None

    def rate(self) -> float:
        """Prompt tokens per second: as measured by earlier runs, else estimated from the
        file size. It stays what it was when this process started (new measurements go to
        the file for the next run), so the sources budgeted for a chat's first question
        are the same for its follow-ups and their saved prompt state keeps matching."""
        return self._startup if self._startup is not None else self.estimate

    def latest(self) -> float | None:
        """The average including this run's answers (None before any measurement)."""
        return self._rate

    def record(self, evaluated_tokens: int, seconds: float) -> None:
        """Fold one answer's prefill into the average (short prompts are ignored)."""
        if evaluated_tokens < MIN_MEASURED_TOKENS or seconds <= 0:
            return
        sample = evaluated_tokens / seconds
        with self._lock:
            old = self._rate
            self._rate = sample if old is None else (1 - SMOOTHING) * old + SMOOTHING * sample
            self._write(self._rate)

    def _read(self) -> dict[str, float]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: float(v) for k, v in data.items() if isinstance(v, (int, float)) and v > 0}

    def _write(self, rate: float) -> None:
        data = self._read()
        data[self.identity] = round(rate, 2)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_suffix(f".{os.getpid()}.part")
            partial.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
            os.replace(partial, self.path)
        except OSError as exc:  # a read-only or full disk: the estimate still serves
            log.warning("could not save the measured prefill speed: %s", exc)
            with contextlib.suppress(OSError):
                partial.unlink()
