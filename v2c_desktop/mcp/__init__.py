"""The MCP server: the library's tools, resources and prompts for AI agents (stdio).

A thin face of the core like the CLI and the GUI: every tool is a `CoreAPI` call through the
library's owner session, so agents, the app and `v2c` commands share one library safely.
`server.build_server` wires the tool groups (`tools/`), `resources` and `prompts`;
`stdio.serve` runs it for `v2c mcp`.
"""

from .deps import Deps
from .server import REGISTRATIONS, V2CServer, build_server
from .stdio import serve

__all__ = ["REGISTRATIONS", "Deps", "V2CServer", "build_server", "serve"]
