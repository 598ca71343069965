"""`v2c mcp` plus one tool that writes junk to stdout three ways, as misbehaving libraries do.

A Python `print`, a raw `os.write(1, ...)` and C `printf` (what llama.cpp or a native decoder
would do) must all land on stderr while the server serves: stdout is the agent's JSON stream.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import os
import sys
from pathlib import Path

from mcp.types import CallToolResult

from v2c_desktop.mcp import Deps, build_server
from v2c_desktop.mcp.results import reads, text_result
from v2c_desktop.mcp.stdio import configure_logging
from v2c_desktop.mcp.tooling import add_tool

NOISE = ("noise from print", "noise from os.write", "noise from printf")


async def make_noise() -> CallToolResult:
    print(NOISE[0])
    sys.stdout.flush()
    os.write(1, f"{NOISE[1]}\n".encode())
    libc = ctypes.CDLL(None)
    libc.printf(f"{NOISE[2]}\n".encode())
    libc.fflush(None)
    return text_result("made noise")


async def main(library: Path) -> None:
    configure_logging()
    server = build_server(Deps(library=library))
    add_tool(
        server,
        make_noise,
        name="make_noise",
        description="Write junk to stdout three ways (test only).",
        annotations=reads("Make noise", open_world=False),
    )
    await server.run_stdio_async()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--library", type=Path, required=True)
    asyncio.run(main(parser.parse_args().library))
