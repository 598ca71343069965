"""`python -m v2c_desktop`: open the desktop app, or run its main job headless.

With a display (or on macOS / Windows) the window opens on the last library. Without one
(a server, CI, `--headless`), the main job runs in the terminal instead: it imports the
bundled sample transcript into the library and prints its outline, which exercises the
whole core path (parse, store, index, read back) on a fresh install.
"""

from __future__ import annotations

import os
import sys

from v2c_desktop.resources import sample_dir

SAMPLE_VIDEO = "youtube:spCOYV4KyPA"


def has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def headless(argv: list[str]) -> int:
    from v2c_desktop.cli.main import main as cli_main

    prefix = ["--library", argv[argv.index("--library") + 1]] if "--library" in argv else []
    status = cli_main([*prefix, "add", str(sample_dir())])
    if status != 0:
        return status
    return cli_main([*prefix, "outline", SAMPLE_VIDEO])


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "--headless" in args or not has_display():
        print(
            "no display: running the main job headless (import the sample, print its "
            "outline); open the app on a desktop with `v2c-desktop`",
            file=sys.stderr,
        )
        return headless([a for a in args if a != "--headless"])
    from v2c_desktop.ui_main import main as gui_main

    return gui_main(args)


if __name__ == "__main__":
    sys.exit(main())
