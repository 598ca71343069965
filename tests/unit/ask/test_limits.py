"""Request limits: refused before any work, with a hint."""

from __future__ import annotations

import pytest

from v2c_desktop.core.ask.limits import (
    MAX_HISTORY_CHARS,
    MAX_HISTORY_TURNS,
    MAX_INPUTS,
    MAX_QUESTION_CHARS,
    check_request,
)
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.types import ChatMessage


def turns(n: int, size: int = 10) -> list[ChatMessage]:
    return [ChatMessage("user" if i % 2 == 0 else "assistant", "x" * size) for i in range(n)]


def test_requests_at_the_limits_pass() -> None:
    check_request("q" * MAX_QUESTION_CHARS, turns(MAX_HISTORY_TURNS), ["youtube:x"] * MAX_INPUTS)
    check_request("What is bitcoin?")
    check_request("q", turns(4, MAX_HISTORY_CHARS // 4))


@pytest.mark.parametrize(
    ("question", "history", "inputs", "words"),
    [
        ("", [], [], "empty"),
        ("  \n ", [], [], "empty"),
        ("q" * (MAX_QUESTION_CHARS + 1), [], [], "4,001 characters"),
        ("q", turns(MAX_HISTORY_TURNS + 1), [], "41 earlier turns"),
        ("q", turns(4, MAX_HISTORY_CHARS // 4 + 1), [], "40,004 characters"),
        ("q", [], ["youtube:x"] * (MAX_INPUTS + 1), "51 videos"),
    ],
)
def test_beyond_a_limit_is_a_bad_request_with_a_hint(
    question: str, history: list[ChatMessage], inputs: list[str], words: str
) -> None:
    with pytest.raises(V2CError) as caught:
        check_request(question, history, inputs)
    error = caught.value
    assert error.code == "bad-request"
    assert words in error.message
    assert error.hint
