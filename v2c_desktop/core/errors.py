"""Typed errors that every surface (CLI, MCP, GUI) can show as message + hint.

A failure the user can act on is never a traceback: it carries a stable code that
scripts and agents branch on, a message that says what happened, and a hint that
says what to do about it.

A hint is written once, in core, but the place to change a setting differs by face: a
flag on the command line, a page of the app's settings, something to ask the user for an
agent. So a hint names the settings it points at as `{proxy}` or `{cookies}` (and the few
actions that differ by face the same way: `{download-again}`, `{get-model}`, where the
library lists things, `{list-collections}`), and each
face renders it with `render_hint(hint, face)` (or `error.hint_for(face)`): the CLI never
names a menu of the app, and the app never names a command-line flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

#: Who shows a hint: the `v2c` command line, the desktop app, or an AI agent over MCP.
Face = Literal["cli", "app", "agent"]

#: The settings a hint may name, worded for each face (`None`: no face known, e.g. a log).
SETTING_WORDS: dict[str, dict[Face | None, str]] = {
    "proxy": {
        "cli": "a proxy (`--proxy URL`)",
        "app": "a proxy (Settings → Imports → Proxy)",
        "agent": "a proxy (the user sets one in v2c: Settings → Imports → Proxy)",
        None: "a proxy",
    },
    "cookies": {
        "cli": "cookies from a browser where you are signed in (`--cookies-from-browser firefox`)",
        "app": "cookies from a browser where you are signed in "
        "(Settings → Imports → Cookies from browser)",
        "agent": "cookies from the user's browser, where they are signed in (the user sets "
        "it in v2c: Settings → Imports → Cookies from browser)",
        None: "cookies from a browser where you are signed in",
    },
    "cookies-setting": {
        "cli": "`--cookies-from-browser`",
        "app": "Settings → Imports → Cookies from browser",
        "agent": "the user's v2c setting Settings → Imports → Cookies from browser",
        None: "the cookies-from-browser setting",
    },
    # the consent to download a captionless web video's audio and transcribe it
    "transcribe-web": {
        "cli": '`--transcribe-web` for this import, or `"transcribe_without_captions": true` '
        "under `imports` in v2c's settings file for every import",
        "app": '`"transcribe_without_captions": true` under `imports` in v2c\'s settings file',
        "agent": 'the user\'s consent: they set `"transcribe_without_captions": true` under '
        "`imports` in v2c's settings file",
        None: "the setting `imports.transcribe_without_captions` in v2c's settings file",
    },
    # not a setting but an action each face words its own way: a download that stopped
    "download-again": {
        "cli": "run the same command again: the download resumes where it stopped",
        "app": "try the download again: it resumes where it stopped",
        "agent": "ask the user to download it again (in v2c: Settings → Models, or "
        "`v2c models pull ID`): it resumes where it stopped",
        None: "download it again: it resumes where it stopped",
    },
    # ... and where a chat model is found: the catalog, local files, model servers
    "get-model": {
        "cli": "download a chat model with `v2c models pull ID` (see `v2c models list`)",
        "app": "get a chat model in Settings → Models",
        "agent": "ask the user to get a chat model (in v2c: Settings → Models, or "
        "`v2c models pull ID`)",
        None: "get a chat model",
    },
    # a video that was asked for as a live stream but is not live (now)
    "import-video": {
        "cli": "import it as a video with `v2c add URL`",
        "app": "import it as a video with Add…",
        "agent": "import it as a video with get_transcript or add_to_collection",
        None: "import it as a video",
    },
    # how a collection comes to follow a playlist, a channel or a feed
    "follow-source": {
        "cli": "fill it from one: `v2c add URL --collection NAME`",
        "app": "fill it from one: Add… with the playlist, channel or feed address and this "
        "collection",
        "agent": "fill it from one: add_to_collection with the playlist, channel or feed URL",
        None: "fill it from a playlist, channel or feed",
    },
    # where comments come from: a video's page on its site, never a file on this computer
    "comments-source": {
        "cli": "comments come from a video's site: pass the URL of a video on YouTube or "
        "another site (`v2c comments URL`), or the id of a video imported from one",
        "app": "comments come from a video's site: choose a video imported from YouTube or "
        "another site (its details show Comments)",
        "agent": "comments come from a video's site: pass the URL of a video on YouTube or "
        "another site yt-dlp reads, or the library id of a video imported from one",
        None: "comments come from a video's site: use a video from YouTube or another site",
    },
    # the Notion integration token an export sends, and the page it writes under
    "notion-token": {
        "cli": "a Notion integration token: `NOTION_TOKEN=...` in the environment, or "
        '`"token"` under `notion` in v2c\'s settings file',
        "app": "a Notion integration token (Export to Notion… → Token)",
        "agent": "the user's Notion integration token (they set it in v2c: Export to "
        "Notion…, or NOTION_TOKEN in the environment `v2c mcp` runs in)",
        None: "a Notion integration token",
    },
    "notion-parent": {
        "cli": 'the page to export under: `--parent PAGE_URL`, or `"parent_page"` under '
        "`notion` in v2c's settings file",
        "app": "the page to export under (Export to Notion… → Under page)",
        "agent": "`parentPageId` (a Notion page URL or id), or the user's default page in "
        "v2c's settings",
        None: "the Notion page to export under",
    },
    # what a brief reads: videos, a collection or a search (the MCP tool: urls or a collection)
    "brief-scope": {
        "cli": "name videos, a collection that holds some, or a search (`--video ID`, "
        "`--collection ID`, `--search QUERY`; see `v2c list` and `v2c collections list`)",
        "app": "choose a collection that holds videos, select videos in the Library, or "
        "search for words the videos say",
        "agent": "pass urls (imported first if new) or a collection that holds videos "
        "(list_collections lists them)",
        None: "name videos, a collection that holds some, or a search",
    },
    # where the library's collections, videos, saved briefs and chat models are listed
    "list-collections": {
        "cli": "run `v2c collections list` to see the collections",
        "app": "choose one of the collections the Library lists",
        "agent": "call list_collections to see the collections",
        None: "see the library's collections",
    },
    "list-videos": {
        "cli": "run `v2c list` to see the ids",
        "app": "choose videos the Library lists",
        "agent": "pass the video's URL (it is imported first), or a collection from "
        "list_collections",
        None: "see the library's videos",
    },
    "list-briefs": {
        "cli": "run `v2c briefs list` to see the saved briefs",
        "app": "it may have been deleted: the Brief pane lists the saved briefs",
        "agent": "it may have been deleted: the user's saved briefs are listed in v2c's "
        "Brief pane (or by `v2c briefs list`)",
        None: "see the saved briefs",
    },
    "list-models": {
        "cli": "see `v2c models list`",
        "app": "choose one of the models offered, or get one in Settings → Models",
        "agent": "call list_models to see the model ids",
        None: "see the chat models v2c lists",
    },
}
_SETTING = re.compile(r"\{(" + "|".join(re.escape(name) for name in SETTING_WORDS) + r")\}")


def render_hint(hint: str, face: Face | None = None) -> str:
    """`hint` with every `{setting}` worded for `face`; other braces are left alone."""
    return _SETTING.sub(lambda m: SETTING_WORDS[m.group(1)][face], hint)


ErrorCode = Literal[
    "bad-request",
    "not-found",
    "unsupported-input",
    "no-transcript",
    "upstream",
    "rate-limited",
    "library-in-use",
    "internal",
]


@dataclass
class V2CError(Exception):
    """A failure with a code, a message and a hint for the user."""

    code: ErrorCode
    message: str
    hint: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message

    def hint_for(self, face: Face | None) -> str:
        """The hint worded for the face that shows it (see `render_hint`)."""
        return render_hint(self.hint, face)

    def to_dict(self, face: Face | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "error": self.code,
            "message": self.message,
            "hint": self.hint_for(face),
        }
        if self.details:
            out["details"] = self.details
        return out


def bad_request(message: str, hint: str = "") -> V2CError:
    return V2CError("bad-request", message, hint)


def not_found(message: str, hint: str = "") -> V2CError:
    return V2CError("not-found", message, hint)


def unsupported_input(message: str, hint: str = "") -> V2CError:
    return V2CError("unsupported-input", message, hint)


def no_transcript(message: str, hint: str = "") -> V2CError:
    return V2CError("no-transcript", message, hint)


def upstream(message: str, hint: str = "") -> V2CError:
    return V2CError("upstream", message, hint)


def rate_limited(message: str, hint: str = "") -> V2CError:
    return V2CError("rate-limited", message, hint)
