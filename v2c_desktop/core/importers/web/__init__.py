"""Web videos through yt-dlp: metadata, the best caption track, playlist expansion.

Nothing here talks to Qt or prints: failures are `V2CError`s with hints that name the two
remedies a user has against blocking sites (browser cookies, a proxy).
"""

from __future__ import annotations

from .expand import expand_web_input, read_url_list
from .fetch import fetch_caption, make_http_client
from .importer import fetch_web_video
from .info_source import InfoSource, YtDlpInfoSource
from .metadata import chapters_from_info, video_from_info
from .settings import WebSettings
from .tracks import TrackChoice, choose_track

__all__ = [
    "InfoSource",
    "TrackChoice",
    "WebSettings",
    "YtDlpInfoSource",
    "chapters_from_info",
    "choose_track",
    "expand_web_input",
    "fetch_caption",
    "fetch_web_video",
    "make_http_client",
    "read_url_list",
    "video_from_info",
]
