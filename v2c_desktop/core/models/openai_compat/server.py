"""Where an OpenAI-compatible server lives, how to authenticate to it, and when to leave it alone.

One `OpenAICompatServer` value describes Ollama, LM Studio, llama-server, vLLM or a hosted
API. The API key is part of that value because the user may keep it in settings, so it is
kept out of `repr` and every other place text about a server ends up (logs, errors).
`Cooldowns` is an object, not module state, so whoever builds the models (the registry) decides
which models share one rate-limit memory, and tests get a fresh one each time.
"""

from __future__ import annotations

import ipaddress
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

import httpx

from ..types import Runtime

if TYPE_CHECKING:
    from ...settings import ServerSetting

RUNTIME: Runtime = "openai-compat"
DEFAULT_COOLDOWN_S = 30.0


@dataclass(frozen=True, slots=True)
class OpenAICompatServer:
    """An OpenAI-compatible endpoint; `base_url` ends at the API root (e.g. `.../v1`).

    `api_key` (from settings) wins over `api_key_env` (the name of an environment variable);
    a key is never shown in `repr`. `local` says whether prompts stay on this machine; `None`
    infers it from the host (loopback, private network or `*.local`).
    """

    base_url: str
    name: str
    api_key_env: str | None = None
    api_key: str | None = field(default=None, repr=False)
    connect_timeout: float = 5.0
    read_timeout: float = 120.0
    local: bool | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "base_url", self.base_url.rstrip("/"))

    def url(self, path: str) -> str:
        """`path` (e.g. `/chat/completions`) under the API root."""
        return f"{self.base_url}/{path.lstrip('/')}"

    @property
    def shown_url(self) -> str:
        """`base_url` fit to show or log: a key in it (`user:key@`, `?key=`) is redacted."""
        return redact_url(self.base_url)

    @property
    def root_url(self) -> str:
        """The base URL without a trailing `/v1`: where Ollama's native API lives."""
        return self.base_url[: -len("/v1")] if self.base_url.endswith("/v1") else self.base_url

    @property
    def is_local(self) -> bool:
        if self.local is not None:
            return self.local
        return host_is_local(urlsplit(self.base_url).hostname or "")

    def timeout(self) -> httpx.Timeout:
        """Connect fast (a dead local server should fail at once); read slowly (prefill)."""
        return httpx.Timeout(
            connect=self.connect_timeout,
            read=self.read_timeout,
            write=self.read_timeout,
            pool=self.connect_timeout,
        )


def host_is_local(host: str) -> bool:
    """True for hosts whose traffic stays on this machine or the user's own network."""
    if host in ("localhost", "") or host.endswith((".local", ".localhost")):
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def resolve_api_key(server: OpenAICompatServer) -> str | None:
    """The key to send: the settings value, else the named environment variable, else none."""
    if server.api_key:
        return server.api_key
    if server.api_key_env:
        return os.environ.get(server.api_key_env) or None
    return None


def auth_headers(server: OpenAICompatServer) -> dict[str, str]:
    """`Authorization: Bearer` only when there is a key; local servers usually want none."""
    key = resolve_api_key(server)
    return {"Authorization": f"Bearer {key}"} if key else {}


def scrub(text: str, server: OpenAICompatServer) -> str:
    """`text` with the server's key masked, for anything that may be shown or logged."""
    key = resolve_api_key(server)
    if key and key in text:
        text = text.replace(key, "***")
    return text


def model_id(server: OpenAICompatServer, model: str) -> str:
    return f"{RUNTIME}/{server.name}/{model}"


def server_from_setting(setting: ServerSetting) -> OpenAICompatServer:
    """The server a saved `ServerSetting` describes."""
    return OpenAICompatServer(
        base_url=setting.base_url,
        name=setting.name,
        api_key_env=setting.api_key_env,
        api_key=setting.api_key,
        local=setting.local or None,
    )


class Cooldowns:
    """Until when each model id must not be called (monotonic seconds).

    A 429 starts a cooldown (Retry-After, else `default_s`); calls during it fail at once
    with reason `cooldown`, so a rate-limited hosted API is not hammered by every request.
    """

    def __init__(
        self,
        *,
        default_s: float = DEFAULT_COOLDOWN_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.default_s = default_s
        self._clock = clock
        self._until: dict[str, float] = {}

    def start(self, model_id: str, seconds: float | None = None) -> float:
        """Cool `model_id` down for `seconds` (default when None); returns the end time."""
        length = self.default_s if seconds is None else max(0.0, seconds)
        until = max(self._clock() + length, self._until.get(model_id, 0.0))
        self._until[model_id] = until
        return until

    def until(self, model_id: str) -> float | None:
        """When the cooldown of `model_id` ends, or None if it is not cooling down."""
        until = self._until.get(model_id)
        if until is not None and until <= self._clock():
            del self._until[model_id]
            return None
        return until

    def remaining(self, model_id: str) -> float:
        """Seconds left in the cooldown of `model_id` (0 when none)."""
        until = self.until(model_id)
        return 0.0 if until is None else until - self._clock()

    def clear(self, model_id: str) -> None:
        self._until.pop(model_id, None)


def redact_url(url: str) -> str:
    """`url` without what may be a secret: the user-info part and the query's values.

    Some servers take their key in the URL (`https://user:KEY@host/v1`, `...?key=KEY`); such
    a URL is shown in errors ("not reachable at ...") and written to the debug log.
    """
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rsplit("@", 1)[1]
    query = "&".join(f"{kv.split('=', 1)[0]}=***" for kv in parts.query.split("&") if kv)
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
