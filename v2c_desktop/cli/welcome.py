"""The app's main job where there is no display: import the bundled sample, show it, and
tell a new user where things are and what to try next.

A first run on a server (or in CI) has no window to explain anything, so the terminal must:
the real path of the library, what was imported (or that it was already there), its
outline, and commands that work as printed (`.venv/bin/v2c ...` in a fresh checkout).
"""

from __future__ import annotations

import argparse
import sys

from v2c_desktop.core.render import outline, render_outline
from v2c_desktop.core.timecode import clock
from v2c_desktop.resources import sample_dir

from .context import open_context
from .invocation import command
from .output import emit_error

SAMPLE_VIDEO = "youtube:spCOYV4KyPA"
SAMPLE_SEARCH = "hardware in the loop"
SAMPLE_QUESTION = "Why do they test flight software with pytest?"

ORIGINS = {
    "creator-captions": "creator captions",
    "auto-captions": "auto-captions",
    "subtitle-file": "from a subtitle file",
    "stt": "speech-to-text",
}


async def welcome(library: str | None) -> int:
    """Import the sample (once) and print what a new user needs; 0 on success."""
    args = argparse.Namespace(library=library, command="welcome", needs_web=False)
    async with open_context(args) as api:
        result = await api.add([str(sample_dir())])
        failed = [o for o in result.outcomes if o.status == "failed"]
        if failed and failed[0].error is not None:
            emit_error(failed[0].error, as_json=False)
            return 1
        record = await api.get_video(SAMPLE_VIDEO)
        status = await api.status()
    was_new = any(o.status == "added" for o in result.outcomes)
    video = record.video
    origin = ORIGINS.get(record.transcript.origin, record.transcript.origin)
    print(f"Library: {status.path}")
    print(
        f"  {status.videos} video{'s' if status.videos != 1 else ''}, "
        f"{status.hours:.1f} hours of transcript"
    )
    verb = "Imported the bundled sample" if was_new else "The bundled sample is in it"
    print(f"{verb}: {video.title} ({video.id}, {clock(record.duration)}, {origin})")
    print()
    sys.stdout.write(render_outline(outline(record)))
    v2c, desktop = command("v2c"), command("v2c-desktop")
    steps = [
        (f'{v2c} search "{SAMPLE_SEARCH}"', "find the moment in every video"),
        (f'{v2c} ask "{SAMPLE_QUESTION}" --video {SAMPLE_VIDEO}', "a cited answer"),
        (f"{v2c} add URL-OR-FILE", "add videos, playlists, files with subtitles, folders"),
        (f"{v2c} mcp", "serve this library to an AI agent (see README)"),
        (desktop, "the window, on a computer with a display"),
    ]
    print("\nNext, try:")
    for step, what in steps:
        print(f"  # {what}\n  {step}")
    return 0
