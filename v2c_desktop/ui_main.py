"""The desktop app's entry point (`v2c-desktop`, `python -m v2c_desktop`)."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """Start the Qt app; imported lazily so the CLI never loads Qt."""
    from v2c_desktop.ui.app import run

    return run(argv)
