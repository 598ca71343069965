"""What a click can open: only http(s) pages and the app's own media files.

An imported `.info.json` sets `webpage_url` to whatever it likes (`file:///.../payload.sh`,
`smb://host/share`, `javascript:`). Such an address stays text in the library; no
timestamp link, citation, exported note or player fallback is ever made from it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.owner.toys import run
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.videos import Video
from v2c_desktop.core.export import export_obsidian
from v2c_desktop.core.ids import is_web, timestamp_url
from v2c_desktop.core.render.markdown import render_markdown
from v2c_desktop.core.services import Services
from v2c_desktop.ui.player.choice import choose_playback

HOSTILE = ["file:///tmp/payload.sh", "smb://evil.example/share", "javascript:alert(1)"]


@pytest.mark.parametrize("url", HOSTILE)
@pytest.mark.parametrize("platform", ["generic", "vimeo", "twitch", "dailymotion", "file"])
def test_a_page_address_that_is_not_http_gives_no_link(platform: str, url: str) -> None:
    video = Video(id=f"{platform}:x", title="t", platform=platform, native_id="x", url=url)
    assert timestamp_url(video, 83) == ""
    assert choose_playback(video, webengine=True).kind == "none"  # never handed to the OS


def test_an_imported_info_json_with_a_file_url_stays_text_everywhere(tmp_path: Path) -> None:
    folder = tmp_path / "archive"
    folder.mkdir()
    (folder / "talk.en.srt").write_text(
        "1\n00:00:01,000 --> 00:00:04,000\nHello and welcome.\n\n"
        "2\n00:01:23,000 --> 00:01:26,000\nThe key idea of the talk.\n",
        encoding="utf-8",
    )
    (folder / "talk.info.json").write_text(
        json.dumps(
            {
                "id": "abc",
                "title": "A talk",
                "extractor_key": "Generic",
                "webpage_url": "file:///tmp/payload.sh",
            }
        ),
        encoding="utf-8",
    )

    async def go() -> tuple[list[str], str]:
        api = CoreAPI(Services.open(tmp_path / "lib.duckdb", index_on_import=False))
        try:
            (vid,) = (await api.add([str(folder)])).changed_ids
            record = await api.get_video(vid)
            assert not is_web(record.video.url)
            transcript = render_markdown(
                record, record.transcript.segments, timestamps=True, page=None
            )
            vault = tmp_path / "vault"
            vault.mkdir()
            export_obsidian(vault, [record], [])
            notes = [p.read_text(encoding="utf-8") for p in vault.rglob("*.md")]
            return notes, transcript
        finally:
            await api.aclose()

    notes, transcript = run(go())
    for text in [*notes, transcript]:
        assert "](file:///tmp/payload.sh" not in text  # no link to it
        assert 'media: "file:///tmp/payload' not in text  # and nothing a media plugin plays
