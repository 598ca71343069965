"""Whether this app owns its library (and serves agents) or is a client of another process.

The owner session calls `notify` whenever an agent connects or leaves; `OwnerState` keeps
that list and turns it into a signal for the status bar and the settings dialog. An agent is
named as its `v2c mcp` introduced it: the client name and version its MCP client sent
("Claude Desktop 1.2"), else the command it runs ("v2c mcp (1234)").
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from v2c_desktop.core.owner import ConnectedClient, Session

NOT_STARTED = "Agents: not started"


def agents(count: int) -> str:
    return f"{count} agent{'s' if count != 1 else ''}"


def since(client: ConnectedClient) -> str:
    return time.strftime("%H:%M:%S", time.localtime(client.connected_at))


class OwnerState(QObject):
    """Signals:
    changed(): the role or the connected agents changed.
    """

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session: Session[Any] | None = None
        self._clients: list[ConnectedClient] = []

    def attach(self, session: Session[Any]) -> None:
        self.session = session
        self._clients = session.clients()
        self.changed.emit()

    def notify(self, clients: list[ConnectedClient]) -> None:
        """The owner session's `on_clients_changed` callback."""
        self._clients = list(clients)
        self.changed.emit()

    @property
    def role(self) -> str:
        return self.session.role if self.session is not None else ""

    def clients(self) -> list[ConnectedClient]:
        return list(self._clients) if self.role == "owner" else []

    def owner_pid(self) -> int | None:
        return self.session.owner_pid if self.session is not None else None

    def status_text(self) -> str:
        """ "Agents: none connected", "Agent: Claude Desktop 1.2", "Agents: Cursor and 2
        more", or who serves the library when another process owns it."""
        if self.role == "owner":
            clients = self.clients()
            if not clients:
                return "Agents: none connected"
            if len(clients) == 1:
                return f"Agent: {clients[0].name}"
            return f"Agents: {clients[0].name} and {len(clients) - 1} more"
        if self.role == "client":
            return f"Library served by another program (PID {self.owner_pid() or '?'})"
        return NOT_STARTED

    def tooltip(self) -> str:
        if self.role == "owner":
            count = agents(len(self.clients()))
            lines = [f"This app (PID {os.getpid()}) owns the library and serves {count}:"]
            lines += [f"{c.name} (PID {c.pid or '?'}) since {since(c)}" for c in self.clients()]
            return "\n".join(lines)
        if self.role == "client":
            return (
                "Another process owns this library (an agent's `v2c mcp` or a `v2c` command); "
                "this app works through it, and takes over if it exits."
            )
        return "The library is not open yet."
