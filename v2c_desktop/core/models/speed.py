"""How fast chat models write on this computer: measured ones, and estimates for the rest.

`test_model` measures a model's generation speed. On a CPU, llama.cpp's generation is bound
by memory bandwidth: each token reads the whole model once, so tokens per second scale with
the inverse of the file size. One measurement of any local GGUF model therefore gives an
honest estimate for every other one in the catalog before a multi-gigabyte download (a
small model's fixed overheads make the estimate err on the slow side).

Measurements are kept in `speeds.json` in the models folder, so they outlast a restart.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)

SPEEDS_FILE = "speeds.json"
SpeedKind = Literal["measured", "estimated", ""]


@dataclass(frozen=True, slots=True)
class Measured:
    """One measured model: its file size (None for a server's model) and tokens/s."""

    model_id: str
    tokens_per_s: float
    size_bytes: int | None
    measured_at: str


@dataclass(frozen=True, slots=True)
class Speed:
    """Tokens per second for one model, and whether they were measured or estimated."""

    tokens_per_s: float | None = None
    kind: SpeedKind = ""


def estimate(size_bytes: int | None, measured: Mapping[str, Measured]) -> float | None:
    """Tokens/s a local model of `size_bytes` should reach, from the local measurements.

    The largest measured file is the reference: its speed is closest to the regime of
    the catalog's multi-gigabyte models.
    """
    if not size_bytes:
        return None
    local = [m for m in measured.values() if m.size_bytes]
    if not local:
        return None
    reference = max(local, key=lambda m: m.size_bytes or 0)
    assert reference.size_bytes is not None
    return round(reference.tokens_per_s * reference.size_bytes / size_bytes, 1)


def speed_of(
    model_id: str,
    size_bytes: int | None,
    measured: Mapping[str, Measured],
    *,
    local_file: bool,
) -> Speed:
    """The measured speed of `model_id`, else an estimate for a local file of its size."""
    own = measured.get(model_id)
    if own is not None:
        return Speed(own.tokens_per_s, "measured")
    if local_file:
        guess = estimate(size_bytes, measured)
        if guess is not None:
            return Speed(guess, "estimated")
    return Speed()


class SpeedLog:
    """The measurements on disk: read on demand, written atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, Measured]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            rows = raw["models"] if isinstance(raw, dict) else []
            return {
                str(row["model_id"]): Measured(
                    model_id=str(row["model_id"]),
                    tokens_per_s=float(row["tokens_per_s"]),
                    size_bytes=int(row["size_bytes"]) if row.get("size_bytes") else None,
                    measured_at=str(row.get("measured_at", "")),
                )
                for row in rows
                if isinstance(row, dict) and float(row.get("tokens_per_s") or 0) > 0
            }
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # only estimates are lost; the next measurement writes a good file again
            log.warning("ignoring unreadable %s: %s", self.path, exc)
            return {}

    def record(self, model_id: str, tokens_per_s: float, size_bytes: int | None) -> Measured:
        """Keep a measurement (replacing an older one of the same model)."""
        entry = Measured(
            model_id,
            tokens_per_s,
            size_bytes,
            datetime.now(UTC).isoformat(timespec="seconds"),
        )
        rows = {**self.read(), model_id: entry}
        payload = {
            "version": 1,
            "models": [
                {
                    "model_id": m.model_id,
                    "tokens_per_s": m.tokens_per_s,
                    "size_bytes": m.size_bytes,
                    "measured_at": m.measured_at,
                }
                for m in rows.values()
            ],
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".speeds-", suffix=".json", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(payload, handle, indent=2)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return entry
