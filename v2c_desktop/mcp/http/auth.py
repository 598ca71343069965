"""Who a request is: the bearer token in its `Authorization` header, checked against the
tokens in the user's settings.

The settings file is read again whenever it changes (a save replaces it, so its inode
changes; a hand edit changes its size or modification time), so a token made with
`v2c mcp token add` or the app's Create token button works at once and a revoked one is
refused from the next request, without restarting the server. A file that cannot be read
lets no one in until it is fixed. Tokens never reach a log line.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.mcp_tokens import match_token
from v2c_desktop.core.settings import HttpToken, load_settings, settings_path

log = logging.getLogger(__name__)
SCHEME = "bearer"


def bearer(header: str | None) -> str | None:
    """The token of `Authorization: Bearer <token>` (scheme in any case), else None."""
    scheme, _, token = (header or "").strip().partition(" ")
    token = token.strip()
    if scheme.lower() != SCHEME or not token or " " in token:
        return None
    return token


@dataclass
class Verdict:
    """What the `Authorization` header proved: a saved token, or why not (`presented`:
    a token was sent but it is not one of ours)."""

    token: HttpToken | None
    presented: bool


class TokenBook:
    """The saved tokens, kept until the settings file changes."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or settings_path()
        self._seen: tuple[int, int, int] | None = None
        self._tokens: list[HttpToken] = []

    def tokens(self) -> list[HttpToken]:
        try:
            stat = os.stat(self.path)
            seen = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
        except OSError:
            seen = (0, 0, -1)  # no file: no tokens
        if seen != self._seen:
            self._seen = seen
            self._tokens = self._load() if seen[2] >= 0 else []
        return self._tokens

    def _load(self) -> list[HttpToken]:
        try:
            return load_settings(self.path).mcp_http.tokens
        except V2CError as error:  # fail closed: nobody gets in on a broken file
            log.warning("no HTTP tokens accepted until the settings are fixed: %s", error)
            return []

    def verify(self, authorization: str | None) -> Verdict:
        secret = bearer(authorization)
        if secret is None:
            return Verdict(None, presented=bool((authorization or "").strip()))
        return Verdict(match_token(secret, self.tokens()), presented=True)
