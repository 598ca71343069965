"""`v2c mcp --http`: the MCP server over Streamable HTTP on a loopback port.

`serve.serve_http` binds and runs it; `app.http_app` is the SDK's endpoint behind `Guard`,
which checks `Host` and `Origin` (`hosts.py`), the bearer token (`auth.py`, tokens from the
user's settings, made by `core/mcp_tokens.py`) and each token's rate (`ratelimit.py`).
"""

from .serve import Bind, parse_bind, serve_http

__all__ = ["Bind", "parse_bind", "serve_http"]
