"""GUI tests: pytest-qt, offscreen, marked `gui`."""
