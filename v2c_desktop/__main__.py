"""`python -m v2c_desktop`: open the desktop app, or run its main job headless.

With a display (or on macOS / Windows) the window opens on the last library. Without one
(a server, CI, `--headless`), the main job runs in the terminal instead: it imports the
bundled sample transcript into the library, prints where the library is, the sample's
outline and the commands to try next (`cli/welcome.py`), which exercises the whole core
path (parse, store, index, read back) on a fresh install.
"""

from __future__ import annotations

import asyncio
import os
import sys


def has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def headless(argv: list[str]) -> int:
    from v2c_desktop.cli.output import emit_error
    from v2c_desktop.cli.welcome import welcome
    from v2c_desktop.core.errors import V2CError

    library = argv[argv.index("--library") + 1] if "--library" in argv[:-1] else None
    try:
        return asyncio.run(welcome(library))
    except V2CError as error:
        emit_error(error, as_json=False)
        return 1


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "--headless" in args or not has_display():
        reason = "--headless" if "--headless" in args else "no display here"
        print(
            f"v2c desktop ({reason}): running its main job in the terminal instead of the window.",
            file=sys.stderr,
        )
        return headless([a for a in args if a != "--headless"])
    from v2c_desktop.ui_main import main as gui_main

    return gui_main(args)


if __name__ == "__main__":
    sys.exit(main())
