"""What changed in a library: the events every face refreshes from.

A write says what it changed (Anki's `OpChanges`): a pane showing videos refreshes when
videos change, whoever made the change - the app itself, an agent importing through
`v2c mcp`, or a `v2c` command - because every write goes through the library's owner.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..wire import wire

Subject = Literal["video", "collection", "chat", "index", "brief", "skips", "comments"]
Action = Literal["added", "updated", "removed", "changed"]


@wire
@dataclass(frozen=True)
class Change:
    """`ids` are the videos, collections or chats concerned (video ids for `index`,
    `skips`, a video's SponsorBlock segments, and `comments`, its comments as read)."""

    subject: Subject
    action: Action
    ids: tuple[str, ...] = ()
