"""A settings file a person edited by hand: wrong shapes are a clear error, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.settings import Settings, load_settings, save_settings


@pytest.mark.parametrize(
    "content",
    [
        {"models": {"servers": ["x"]}},
        {"models": {"servers": "http://localhost:8080"}},
        {"models": ["chat"]},
        {"imports": 3},
        {"sponsorblock": {"skip_in_player": "yes"}},
        {"sponsorblock": {"server": "file:///etc/passwd"}},
        ["not", "an", "object"],
    ],
)
def test_wrong_shapes_are_a_bad_request_with_a_hint(tmp_path: Path, content: object) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    with pytest.raises(V2CError) as caught:
        load_settings(path)
    assert caught.value.code == "bad-request"
    assert str(path) in caught.value.message
    assert "delete it" in caught.value.hint
    assert path.read_text(encoding="utf-8") == json.dumps(content)  # what the user wrote stays


def test_a_saved_file_reads_back(tmp_path: Path) -> None:
    path = save_settings(Settings(), tmp_path / "settings.json")
    assert load_settings(path) == Settings()
