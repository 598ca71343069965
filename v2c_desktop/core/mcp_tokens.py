"""The bearer tokens that let a client reach `v2c mcp --http`: made, listed, revoked, checked.

A token is `v2c_` and 43 random URL-safe characters (256 bits). It is shown once, when it is
made (`v2c mcp token add NAME`, or the app's Create token button); the settings keep only its
SHA-256 with its name, the time it was made and its first characters (`mcp_http.tokens`).
A plain hash is enough for a random secret of that length: there is nothing to guess.
`match_token` compares the hash of what a request presents with every saved hash in
constant time, so the time it takes says nothing about how close a guess was.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import UTC, datetime
from pathlib import Path

from .errors import bad_request, not_found
from .settings import HttpToken, load_settings, save_http_tokens

TOKEN_PREFIX = "v2c_"
#: The characters of a token kept in the settings to recognise it by ("v2c_AbCd").
SHOWN_CHARS = len(TOKEN_PREFIX) + 4
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
NAME_HINT = "a name of letters, digits, '.', '_' or '-' (up to 64), e.g. claude-web"


def token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def list_tokens(path: Path | None = None) -> list[HttpToken]:
    return load_settings(path).mcp_http.tokens


def add_token(name: str, path: Path | None = None) -> tuple[HttpToken, str]:
    """Make a token called `name` and save its hash: the record and the token itself, which
    is never available again."""
    if not NAME.fullmatch(name):
        raise bad_request(f"{name!r} is not a token name", f"use {NAME_HINT}")
    tokens = list_tokens(path)
    if any(token.name == name for token in tokens):
        raise bad_request(
            f"there is a token called {name} already",
            "choose another name, or revoke that one first (`v2c mcp token revoke NAME`)",
        )
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    created = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    record = HttpToken(name, created, token_hash(secret), secret[:SHOWN_CHARS])
    save_http_tokens([*tokens, record], path)
    return record, secret


def revoke_token(name: str, path: Path | None = None) -> HttpToken:
    """Remove the token called `name`: a server refuses it from its next request."""
    tokens = list_tokens(path)
    gone = [token for token in tokens if token.name == name]
    if not gone:
        known = ", ".join(token.name for token in tokens) or "none"
        raise not_found(f"there is no token called {name}", f"the tokens are: {known}")
    save_http_tokens([token for token in tokens if token.name != name], path)
    return gone[0]


def next_name(tokens: list[HttpToken], stem: str = "app") -> str:
    """`app-1`, or the first `app-N` no token has yet."""
    names = {token.name for token in tokens}
    number = 1
    while f"{stem}-{number}" in names:
        number += 1
    return f"{stem}-{number}"


def match_token(secret: str, tokens: list[HttpToken]) -> HttpToken | None:
    """The saved token `secret` is, if any; every hash is compared, in constant time."""
    presented = token_hash(secret).encode("ascii")
    found: HttpToken | None = None
    for token in tokens:
        if hmac.compare_digest(presented, token.sha256.encode("ascii", "replace")):
            found = token
    return found
