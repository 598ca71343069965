"""A stand-in for the YouTube IFrame API, so the player page can be tested with no network.

The page is loaded with `api=off` (and every remote request blocked); the test then runs
`STUB` in it, which defines `YT.Player` recording every call in `window.__calls` and
reporting the last seek as the current time, and starts the page's player.
"""

from __future__ import annotations

import json
from typing import Any

from pytestqt.qtbot import QtBot

from v2c_desktop.ui.player.youtube_backend import YouTubeBackend

STUB = r"""
window.__calls = [];
window.YT = {
  Player: function (elementId, options) {
    const self = this;
    let time = 0, state = -1;
    function change(next) { state = next; options.events.onStateChange({ data: next }); }
    self.seekTo = function (seconds, allowAhead) {
      __calls.push(["seekTo", seconds]);
      time = seconds;
    };
    self.playVideo = function () { __calls.push(["playVideo"]); change(1); };
    self.pauseVideo = function () { __calls.push(["pauseVideo"]); change(2); };
    self.getPlayerState = function () { return state; };
    self.getCurrentTime = function () { return time; };
    self.getDuration = function () { return 600; };
    self.setPlaybackRate = function (rate) { __calls.push(["setPlaybackRate", rate]); };
    self.setVolume = function (volume) { __calls.push(["setVolume", volume]); };
    self.mute = function () { __calls.push(["mute"]); };
    self.unMute = function () { __calls.push(["unMute"]); };
    self.loadVideoById = function (o) {
      __calls.push(["loadVideoById", o.videoId, o.startSeconds]);
    };
    __calls.push(["new", elementId, options.videoId, options.playerVars.start]);
    setTimeout(function () { options.events.onReady({ target: self }); }, 0);
  },
};
onYouTubeIframeAPIReady();
"""


def run_js(qtbot: QtBot, backend: YouTubeBackend, code: str) -> Any:
    """The value of `code` evaluated in the player page."""
    box: list[Any] = []
    backend.page.runJavaScript(code, 0, box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=10000)
    return box[0]


def start_stub(qtbot: QtBot, backend: YouTubeBackend) -> None:
    """Wait for the page, then give it the stub IFrame API and wait for the player."""
    qtbot.waitUntil(lambda: backend._loaded, timeout=20000)
    backend.page.runJavaScript(STUB)
    qtbot.waitUntil(lambda: backend.page_ready, timeout=10000)


def page_calls(qtbot: QtBot, backend: YouTubeBackend) -> list[list[Any]]:
    return list(json.loads(run_js(qtbot, backend, "JSON.stringify(window.__calls || [])")))
