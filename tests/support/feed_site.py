"""A site on 127.0.0.1 that yt-dlp reads as a playlist: an RSS feed of talk pages.

Each item is a page with an HTML5 `<video>` and a `<track>` of English subtitles; yt-dlp's
generic extractor reads the feed flat as a playlist and each page as a video whose subtitles
are the track. `Site.publish` adds a talk to the feed, as a channel's new upload.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

TALKS = {
    "harbour": ("The harbour ferry", "The ferry ticket costs five euros for adults."),
    "lighthouse": ("The old lighthouse", "The lighthouse keeper climbs ninety steps."),
}


def write_site(root: Path, base: str, talks: dict[str, tuple[str, str]] | None = None) -> None:
    """The feed, a page per talk and its subtitles, all linking to `base` (the server)."""
    talks = TALKS if talks is None else talks
    items = "".join(
        f"<item><title>{title}</title><link>{base}/{name}.html</link><guid>{name}</guid></item>"
        for name, (title, _) in talks.items()
    )
    (root / "feed.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>'
        f"<title>Island talks</title><link>{base}/</link><description>Talks</description>"
        f"{items}</channel></rss>\n",
        encoding="utf-8",
    )
    for name, (title, line) in talks.items():
        (root / f"{name}.html").write_text(
            f"<!doctype html><html><head><title>{title}</title></head><body>"
            f'<video controls src="/{name}.mp4">'
            f'<track kind="subtitles" srclang="en" label="English" src="/{name}.en.vtt">'
            "</video></body></html>\n",
            encoding="utf-8",
        )
        (root / f"{name}.en.vtt").write_text(
            "WEBVTT\n\n"
            f"00:00:01.000 --> 00:00:04.000\n{line}\n\n"
            "00:00:05.000 --> 00:00:09.000\nThank you for listening.\n",
            encoding="utf-8",
        )


class Site:
    def __init__(self, root: Path) -> None:
        self.requests: list[str] = []
        requests = self.requests

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                # yt-dlp reads a feed by its bytes, but takes some content types for media
                self.extensions_map = {**self.extensions_map, ".xml": "text/xml"}
                super().__init__(*args, directory=str(root), **kwargs)  # serves the request

            def log_message(self, format: str, *args: object) -> None:
                requests.append(self.path)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.root = root
        self.talks = dict(TALKS)
        write_site(root, self.base, self.talks)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def publish(self, name: str, title: str, line: str) -> None:
        """A new upload: its page and subtitles, and the feed listing it."""
        self.talks[name] = (title, line)
        write_site(self.root, self.base, self.talks)

    def paths(self) -> set[str]:
        return {p.split("#", 1)[0] for p in self.requests}


@contextmanager
def serve_site(root: Path) -> Iterator[Site]:
    """The site served from `root` (created) until the block ends."""
    root.mkdir(parents=True, exist_ok=True)
    served = Site(root)
    served.thread.start()
    try:
        yield served
    finally:
        served.server.shutdown()
        served.server.server_close()
