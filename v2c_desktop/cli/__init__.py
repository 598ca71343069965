"""`v2c`: the headless command over the same core as the app and the MCP server."""
