"""Request limits for ask and chat, checked before any retrieval or model call.

A request beyond them would cost minutes of retrieval and a prompt no model window holds;
refusing it at once with a hint ("ask a shorter question", "start a new chat") is kinder
than failing halfway through a stream. The numbers are the spec's.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import V2CError
from ..models.types import ChatMessage

MAX_QUESTION_CHARS = 4000
MAX_HISTORY_TURNS = 40
MAX_HISTORY_CHARS = 40_000
MAX_INPUTS = 50


def check_request(
    question: str, history: Sequence[ChatMessage] = (), inputs: Sequence[str] = ()
) -> None:
    """Raise `V2CError("bad-request")` when the request is empty or beyond a limit.

    A turn is one earlier message (a question or an answer), so 40 turns are 20 exchanges.
    """
    if not question.strip():
        raise V2CError("bad-request", "The question is empty.", "type a question about the videos")
    if len(question) > MAX_QUESTION_CHARS:
        raise _bad(
            f"The question is {len(question):,} characters long; "
            f"the limit is {MAX_QUESTION_CHARS:,}.",
            "ask a shorter question",
            len(question),
            MAX_QUESTION_CHARS,
        )
    if len(history) > MAX_HISTORY_TURNS:
        raise _bad(
            f"The chat has {len(history)} earlier turns; the limit is {MAX_HISTORY_TURNS}.",
            "start a new chat (earlier answers stay saved)",
            len(history),
            MAX_HISTORY_TURNS,
        )
    history_chars = sum(len(turn.content) for turn in history)
    if history_chars > MAX_HISTORY_CHARS:
        raise _bad(
            f"The chat's earlier turns hold {history_chars:,} characters; "
            f"the limit is {MAX_HISTORY_CHARS:,}.",
            "start a new chat (earlier answers stay saved)",
            history_chars,
            MAX_HISTORY_CHARS,
        )
    if len(inputs) > MAX_INPUTS:
        raise _bad(
            f"The request names {len(inputs)} videos; the limit is {MAX_INPUTS}.",
            "ask about fewer videos at once, or put them in a collection and ask the collection",
            len(inputs),
            MAX_INPUTS,
        )


def _bad(message: str, hint: str, got: int, limit: int) -> V2CError:
    return V2CError("bad-request", message, hint, {"got": got, "limit": limit})
