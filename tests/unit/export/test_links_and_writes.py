"""Timestamp links made once per video (the same links as made line by line), writes that
leave the old note whole when they fail, and a subfolder that is a symlink out of the vault."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.unit.export.test_obsidian_export import NOTE, _hostile, _intro, _vault
from tests.unit.export.test_reexport import _corrected
from v2c_desktop.core.domain.videos import Video
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.export import atomic, export_obsidian
from v2c_desktop.core.export.atomic import write_atomic
from v2c_desktop.core.export.links import Player, safe_url
from v2c_desktop.core.ids import timestamp_url


def _videos(tmp_path: Path) -> list[Video]:
    clip = tmp_path / "my clips" / "talk (1).mp4"
    clip.parent.mkdir()
    clip.write_bytes(b"\x00")
    captions = tmp_path / "subs.en.srt"
    captions.write_text("", encoding="utf-8")

    def video(platform: str, url: str = "", source: str = "", native: str = "n1") -> Video:
        return Video(f"{platform}:{native}", "t", platform, native, url=url, source_path=source)

    return [
        video("youtube", "https://www.youtube.com/watch?v=4321abcdefg", native="4321abcdefg"),
        video("vimeo", "https://vimeo.com/4321"),  # the probe's digits in the URL itself
        video("twitch", "https://www.twitch.tv/videos/1"),  # 1h12m1s: no plain number
        video("dailymotion", "https://www.dailymotion.com/video/x8"),
        video("generic", "https://example.org/talk#old"),
        video("generic", "javascript:alert(1)"),  # no link at all
        video("file", source=str(clip)),  # a local file: `#t=83.5`, exact
        video("file", "https://youtu.be/abcdefghijk", str(captions)),  # subtitles + a page
    ]


@pytest.mark.parametrize("index", range(8))
def test_a_players_links_are_the_ones_timestamp_url_makes(tmp_path: Path, index: int) -> None:
    video = _videos(tmp_path)[index]
    player = Player(video, "")
    for seconds in (0.0, 0.5, 1.0, 59.99, 83.5, 4321.5, 4321.0, 36000.25):
        assert player.url_at(seconds) == safe_url(timestamp_url(video, seconds)), seconds


def test_a_failed_write_leaves_the_old_note_whole(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("what was there\n", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):  # fails while writing: a lone surrogate
        write_atomic(note, "new text " * 10_000 + "\ud800")
    assert note.read_text(encoding="utf-8") == "what was there\n"
    assert [p.name for p in tmp_path.iterdir()] == ["note.md"]  # no temporary file left


def test_a_failed_rename_leaves_the_old_note_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [])
    before = (vault / NOTE).read_bytes()
    changed = _corrected(record)  # so the note is written again

    def refuse(src: str, dst: str) -> None:  # the disk fills up, a sync client holds a lock
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", refuse)
    with pytest.raises(OSError):
        export_obsidian(vault, [changed], [])
    monkeypatch.undo()
    assert (vault / NOTE).read_bytes() == before
    assert not [p for p in vault.rglob("*") if p.name.endswith(".v2c-tmp")]


def test_a_subfolder_that_is_a_symlink_out_of_the_vault_is_refused(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (vault / "v2c").mkdir()
    os.symlink(outside, vault / "v2c" / "Videos", target_is_directory=True)
    with pytest.raises(V2CError) as refused:
        export_obsidian(vault, [_hostile("aaaaaaaaaaa", "Talk", "x")], [])
    assert "outside the vault" in refused.value.message
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in (vault / "v2c").iterdir()) == ["Videos"]  # nothing written
