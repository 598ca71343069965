"""Bearer tokens: shown once, kept as hashes, checked in constant time, never resurrected."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.mcp_tokens import (
    add_token,
    list_tokens,
    match_token,
    next_name,
    revoke_token,
    token_hash,
)
from v2c_desktop.core.settings import McpHttpSettings, Settings, load_settings, save_settings
from v2c_desktop.mcp.http.auth import TokenBook, bearer


def test_a_token_is_shown_once_and_only_its_hash_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    record, secret = add_token("claude-web", path)
    assert secret.startswith("v2c_") and len(secret) == 47
    text = path.read_text(encoding="utf-8")
    assert secret not in text and token_hash(secret) in text
    assert record.prefix == secret[:8] and record.created.endswith("Z")
    assert secret not in repr(record) and record.sha256 not in repr(record)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert list_tokens(path) == [record]
    assert match_token(secret, list_tokens(path)) == record
    assert match_token(secret + "x", list_tokens(path)) is None
    assert match_token("", list_tokens(path)) is None


def test_names_are_checked_and_revoking_removes_only_that_token(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    _, first = add_token("one", path)
    _, second = add_token("two", path)
    assert first != second
    for bad in ("", "has space", "-dash-first", "x" * 65, "semi;colon"):
        with pytest.raises(V2CError) as caught:
            add_token(bad, path)
        assert caught.value.code == "bad-request"
    with pytest.raises(V2CError, match="already"):
        add_token("one", path)
    revoke_token("one", path)
    assert [t.name for t in list_tokens(path)] == ["two"]
    with pytest.raises(V2CError) as missing:
        revoke_token("one", path)
    assert missing.value.code == "not-found" and "two" in missing.value.hint
    assert next_name(list_tokens(path)) == "app-1"


def test_saving_an_older_copy_of_the_settings_keeps_the_tokens_in_the_file(
    tmp_path: Path,
) -> None:
    """The app's windows keep the settings they loaded at start: a Save from one of them
    must neither drop a token made since nor bring back one revoked since."""
    path = tmp_path / "settings.json"
    add_token("old", path)
    stale = load_settings(path)
    revoke_token("old", path)
    fresh, _ = add_token("new", path)
    stale.mcp_http.port = 9000
    save_settings(stale, path)
    saved = load_settings(path)
    assert saved.mcp_http.port == 9000
    assert saved.mcp_http.tokens == [fresh]
    save_settings(Settings(), path)
    assert load_settings(path).mcp_http.tokens == [fresh]


@pytest.mark.parametrize(
    "section",
    [
        {"port": "8732"},
        {"port": 70000},
        {"burst": 0},
        {"requests_per_minute": True},
        {"tokens": "v2c_secret"},
        {"tokens": [{"name": "x"}]},
        {"tokens": [{"name": "x", "created": "now", "sha256": 3}]},
    ],
)
def test_a_hand_edited_section_that_is_wrong_is_a_clear_error(
    tmp_path: Path, section: dict[str, object]
) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"mcp_http": section}), encoding="utf-8")
    with pytest.raises(V2CError) as caught:
        load_settings(path)
    assert "mcp_http" in caught.value.message or "HttpToken" in caught.value.message


def test_the_defaults() -> None:
    http = McpHttpSettings()
    assert (http.requests_per_minute, http.burst, http.tokens) == (120, 30, [])


@pytest.mark.parametrize(
    ("header", "token"),
    [
        ("Bearer v2c_abc", "v2c_abc"),
        ("bearer   v2c_abc ", "v2c_abc"),
        ("Basic v2c_abc", None),
        ("Bearer", None),
        ("Bearer a b", None),
        (None, None),
    ],
)
def test_the_bearer_header(header: str | None, token: str | None) -> None:
    assert bearer(header) == token


def test_the_server_reads_tokens_again_when_the_file_changes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    path = tmp_path / "settings.json"
    book = TokenBook(path)
    assert book.verify("Bearer v2c_x").token is None  # no file: nobody
    record, secret = add_token("agent", path)
    verdict = book.verify(f"Bearer {secret}")
    assert verdict.token == record and verdict.presented
    revoke_token("agent", path)
    assert book.verify(f"Bearer {secret}").token is None
    _, again = add_token("agent2", path)
    path.write_text("{ broken", encoding="utf-8")
    refused = book.verify(f"Bearer {again}")
    assert refused.token is None and refused.presented  # a broken file lets no one in
    assert not book.verify(None).presented
    assert again not in caplog.text and secret not in caplog.text
