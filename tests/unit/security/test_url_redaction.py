"""A key placed in a server's address never shows up where the address is shown or logged."""

from __future__ import annotations

import logging
import socket

import httpx
import pytest

from tests.unit.owner.toys import run
from v2c_desktop.core.models.openai_compat import OpenAICompatChatModel
from v2c_desktop.core.models.openai_compat.server import OpenAICompatServer, redact_url
from v2c_desktop.core.models.types import ChatMessage, ModelCallFailed

SECRET = "sk-live-12345"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"https://user:{SECRET}@api.example/v1", "https://***@api.example/v1"),
        (f"https://api.example/v1?key={SECRET}&x=1", "https://api.example/v1?key=***&x=***"),
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ],
)
def test_redact_url_hides_userinfo_and_query_values(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_an_unreachable_error_and_the_repr_do_not_show_the_key(
    caplog: pytest.LogCaptureFixture,
) -> None:
    base = f"http://me:{SECRET}@127.0.0.1:{closed_port()}/v1?key={SECRET}"

    async def go() -> ModelCallFailed:
        async with httpx.AsyncClient() as http:
            model = OpenAICompatChatModel(OpenAICompatServer(base, "keyed"), "m", http=http)
            assert SECRET not in repr(model)
            try:
                async for _ in model.chat([ChatMessage("user", "hi")]):
                    pass
            except ModelCallFailed as failure:
                return failure
            raise AssertionError("a closed port answered")

    with caplog.at_level(logging.DEBUG):
        failure = run(go())
    assert failure.reason == "unreachable" and "127.0.0.1" in failure.detail
    assert SECRET not in failure.detail and SECRET not in str(failure)
    assert all(SECRET not in r.getMessage() for r in caplog.records if r.name.startswith("v2c"))
