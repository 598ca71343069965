"""The Qt-free core: everything a user can do, usable headless.

Nothing below this package may import Qt; the GUI, the CLI and the MCP server all
call into it (see docs/architecture.md).
"""
