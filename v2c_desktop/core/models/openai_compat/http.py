"""One request to an OpenAI-compatible server, with every failure already a `ModelCallFailed`.

Chat, JSON completion, embeddings and discovery all need the same things around a request:
the key header, the server's timeouts, the cooldown check before and the cooldown start after
a 429, and a second try when a server rejects one of our optional parameters. Keeping that
here means each caller only reads a good response.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from ..types import ModelCallFailed
from .errors import failure_for_status, failure_for_transport
from .server import Cooldowns, OpenAICompatServer, auth_headers, redact_url

log = logging.getLogger("v2c_desktop.core.models.openai_compat")

# A rejected optional parameter is dropped and the request sent again, at most this often.
MAX_ADAPTATIONS = 3

BodyBuilder = Callable[[], dict[str, Any]]
# Given a rejected request's status and body text, adjust the next body; False: give up.
Adapter = Callable[[int, str], bool]


def _never_adapt(status: int, text: str) -> bool:
    return False


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A server plus the id failures and cooldowns are filed under."""

    server: OpenAICompatServer
    http: httpx.AsyncClient
    model_id: str
    cooldowns: Cooldowns | None = None

    def check_cooldown(self) -> None:
        """Fail at once, without a request, while this model is cooling down."""
        if self.cooldowns is None:
            return
        remaining = self.cooldowns.remaining(self.model_id)
        if remaining > 0:
            detail = f"{self.server.name} rate-limited this model; {remaining:.0f} s left"
            raise ModelCallFailed(self.model_id, "cooldown", detail, remaining)

    async def send(
        self,
        method: str,
        path: str,
        body: BodyBuilder | None = None,
        *,
        stream: bool = False,
        adapt: Adapter = _never_adapt,
        what: str = "request",
    ) -> httpx.Response:
        """A response with a success status; with `stream` the caller must close it.

        `body` is rebuilt for every try so `adapt` can change what it produces.
        """
        url = self.server.url(path)
        for tries_left in range(MAX_ADAPTATIONS, -1, -1):
            request = self.http.build_request(
                method,
                url,
                json=body() if body is not None else None,
                headers=auth_headers(self.server),
                timeout=self.server.timeout(),
            )
            log.debug("%s %s for %s", method, redact_url(url), self.model_id)
            try:
                response = await self.http.send(request, stream=stream)
            except httpx.HTTPError as exc:
                failure = failure_for_transport(self.server, self.model_id, exc, what)
                raise self._logged(failure) from exc
            if response.status_code < 400:
                return response
            try:
                text = (await response.aread()).decode("utf-8", errors="replace")
            except httpx.HTTPError:
                text = ""
            finally:
                await response.aclose()
            if tries_left and adapt(response.status_code, text):
                log.info("%s rejected a parameter; retrying %s without it", url, what)
                continue
            failure = failure_for_status(
                self.server, self.model_id, response.status_code, response.headers, text
            )
            if failure.reason == "rate-limited" and self.cooldowns is not None:
                self.cooldowns.start(self.model_id, failure.retry_after)
            raise self._logged(failure)
        raise AssertionError("unreachable")  # pragma: no cover - the loop always returns/raises

    async def json(
        self,
        method: str,
        path: str,
        body: BodyBuilder | None = None,
        *,
        adapt: Adapter = _never_adapt,
        what: str = "request",
    ) -> Any:
        """The decoded JSON of a successful response; unparseable bodies are `bad-response`."""
        response = await self.send(method, path, body, adapt=adapt, what=what)
        try:
            return response.json()
        except ValueError:
            raise self._logged(
                ModelCallFailed(
                    self.model_id, "bad-response", f"{self.server.name} {what} sent non-JSON"
                )
            ) from None

    def transport_failure(self, exc: httpx.HTTPError, what: str) -> ModelCallFailed:
        """For errors raised while reading a stream, after `send` returned."""
        return self._logged(failure_for_transport(self.server, self.model_id, exc, what))

    def _logged(self, failure: ModelCallFailed) -> ModelCallFailed:
        # details are already key-free (see openai_compat.errors); the chain records attempts,
        # so this is for diagnosis, not for the user
        log.info("%s failed: %s %s", failure.model_id, failure.reason, failure.detail)
        return failure
