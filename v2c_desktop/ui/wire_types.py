"""Let the app's answers, chats and status cross the library owner's socket.

The owner codec only rebuilds registered dataclasses. The core registers the library and
search types; the ask events, saved chats and `LibraryStatus` are not registered there
yet, so this process registers them for both of its roles: as the owner (an agent's
`v2c mcp` asks through us) and as a client (we ask through another owner). Registering a
class twice is a no-op, so this stays harmless once the core does it itself.
"""

from __future__ import annotations

_done = False


def register_wire_types() -> None:
    global _done
    if _done:
        return
    from v2c_desktop.core.api import LibraryStatus
    from v2c_desktop.core.ask.citations import Citation
    from v2c_desktop.core.ask.events import (
        AskDelta,
        AskDone,
        AskError,
        AskMeta,
        AskReasoning,
        AskRequest,
        SourceInfo,
    )
    from v2c_desktop.core.owner import register
    from v2c_desktop.core.store.chats import ChatMessageRecord, ChatRecord

    for cls in (
        *(AskRequest, AskMeta, AskReasoning, AskDelta, AskDone, AskError, SourceInfo, Citation),
        *(ChatRecord, ChatMessageRecord, LibraryStatus),
    ):
        register(cls)
    _done = True
