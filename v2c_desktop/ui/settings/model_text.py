"""How the model manager words sizes, speeds, test results and failures for a person."""

from __future__ import annotations

from v2c_desktop.core.domain.models import ModelRow, ModelTest
from v2c_desktop.core.errors import V2CError

#: English text runs about 0.75 words per token of these models' tokenizers.
WORDS_PER_TOKEN = 0.75
#: The length of a typical cited answer, to turn a speed into a wait a person can picture.
ANSWER_WORDS = 150


def size_text(size: int) -> str:
    if size >= 1_000_000_000:
        return f"{size / 1_000_000_000:.1f} GB"
    if size >= 1_000_000:
        return f"{size / 1_000_000:.0f} MB"
    return f"{max(size, 0) / 1_000:.0f} kB"


def rate_text(tokens_per_s: float) -> str:
    """ "about 9 words a second", or "about 1 word every 3 s" for a slow model."""
    words = tokens_per_s * WORDS_PER_TOKEN
    if words >= 1.5:
        return f"about {words:.0f} words a second"
    return f"about 1 word every {max(1, round(1 / max(words, 0.01)))} s"


def answer_time_text(tokens_per_s: float) -> str:
    """How long a typical answer takes to write at this speed."""
    seconds = ANSWER_WORDS / max(tokens_per_s * WORDS_PER_TOKEN, 0.01)
    if seconds < 90:
        return f"a {ANSWER_WORDS}-word answer in about {seconds:.0f} s"
    return f"a {ANSWER_WORDS}-word answer in about {seconds / 60:.0f} min"


def speed_text(row: ModelRow) -> str:
    """The row's speed on this computer, saying whether it was measured or estimated."""
    if row.tokens_per_s is None or row.speed == "":
        return "Speed on this computer: not measured yet"
    how = "measured" if row.speed == "measured" else "estimated"
    return f"Writes {rate_text(row.tokens_per_s)} here ({how})"


def speed_tooltip(row: ModelRow) -> str:
    if row.tokens_per_s is None:
        return "Press “Measure speed” above: a short test of a small model gives an estimate."
    how = (
        "measured by its Test"
        if row.speed == "measured"
        else "estimated from a measured model of another size (bigger files write slower)"
    )
    return f"{row.tokens_per_s:g} tokens per second, {how}: {answer_time_text(row.tokens_per_s)}"


def test_text(result: ModelTest) -> str:
    """One line on what a model test measured."""
    if result.kind == "embed":
        return f"Works: {result.texts_per_s or 0:g} passages a second."
    parts = ["Works"]
    if result.generation_tokens_per_s:
        parts.append(f"writes {rate_text(result.generation_tokens_per_s)}")
    if result.load_s:
        parts.append(f"loaded in {result.load_s:.1f} s")
    text = ", ".join(parts) + "."
    if result.answer:
        answer = " ".join(result.answer.split())
        text += f" It answered: “{answer[:120]}{'…' if len(answer) > 120 else ''}”"
    return text


def failure_text(error: V2CError) -> str:
    """A failure as the app shows it: the core's plain message, then the app's hint."""
    return " ".join(_sentence(part) for part in (error.message, error.hint_for("app")) if part)


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".")
    return f"{text[:1].upper()}{text[1:]}."
