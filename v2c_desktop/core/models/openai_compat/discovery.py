"""Which models a server offers, and which local servers are running right now.

Users who already run Ollama or LM Studio should not have to type a URL: the app probes
their default ports at start-up. The probes are concurrent with a short timeout so a machine
without either costs well under a second (a closed loopback port is refused at once).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import httpx

from ..types import ModelCallFailed
from .errors import bad_response
from .http import Endpoint
from .server import RUNTIME, OpenAICompatServer, redact_url

log = logging.getLogger("v2c_desktop.core.models.openai_compat")


@dataclass(frozen=True, slots=True)
class LocalCandidate:
    """A local server to look for: its label and API root."""

    name: str
    base_url: str


DEFAULT_CANDIDATES: tuple[LocalCandidate, ...] = (
    LocalCandidate("ollama", "http://127.0.0.1:11434/v1"),
    LocalCandidate("lmstudio", "http://127.0.0.1:1234/v1"),
)


@dataclass(frozen=True, slots=True)
class DetectedServer:
    """A local server that answered, with the model ids it serves (maybe none loaded yet)."""

    name: str
    base_url: str
    models: tuple[str, ...]

    def server(self) -> OpenAICompatServer:
        return OpenAICompatServer(base_url=self.base_url, name=self.name, local=True)


async def list_models(server: OpenAICompatServer, http: httpx.AsyncClient) -> list[str]:
    """Model ids from `GET /models`, else from Ollama's native `GET /api/tags`.

    The fallback is tried on any base: servers without `/api/tags` just answer 404, and the
    first failure is the one reported.
    """
    endpoint = Endpoint(server, http, f"{RUNTIME}/{server.name}")
    try:
        return _openai_ids(await endpoint.json("GET", "/models", what="model list"), server)
    except ModelCallFailed as failure:
        if failure.reason in ("unreachable", "timeout", "auth"):
            raise  # the server itself is down or refuses us: /api/tags will not help
        first = failure
    native = Endpoint(replace(server, base_url=server.root_url), http, endpoint.model_id)
    try:
        return _ollama_names(await native.json("GET", "/api/tags", what="model list"), server)
    except ModelCallFailed:
        raise first from None


def _openai_ids(data: Any, server: OpenAICompatServer) -> list[str]:
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise bad_response(server, f"{RUNTIME}/{server.name}", "model list has no `data` array")
    return [
        item["id"] for item in items if isinstance(item, dict) and isinstance(item.get("id"), str)
    ]


def _ollama_names(data: Any, server: OpenAICompatServer) -> list[str]:
    items = data.get("models") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise bad_response(server, f"{RUNTIME}/{server.name}", "tag list has no `models` array")
    names: list[str] = []
    for item in items:
        if isinstance(item, dict):
            name = item.get("name") or item.get("model")
            if isinstance(name, str):
                names.append(name)
    return names


async def detect_local_servers(
    http: httpx.AsyncClient,
    *,
    candidates: Sequence[LocalCandidate] = DEFAULT_CANDIDATES,
    timeout: float = 0.5,
) -> list[DetectedServer]:
    """The candidates that answered a model listing within `timeout`, in candidate order."""

    async def probe(candidate: LocalCandidate) -> DetectedServer | None:
        server = OpenAICompatServer(
            base_url=candidate.base_url,
            name=candidate.name,
            connect_timeout=timeout,
            read_timeout=timeout,
            local=True,
        )
        try:
            # both listings may run: bound the whole probe, not each request
            models = await asyncio.wait_for(list_models(server, http), timeout * 2)
        except (ModelCallFailed, TimeoutError) as exc:
            log.debug("no %s at %s: %s", candidate.name, redact_url(candidate.base_url), exc)
            return None
        return DetectedServer(candidate.name, server.base_url, tuple(models))

    found = await asyncio.gather(*(probe(c) for c in candidates))
    return [server for server in found if server is not None]
