"""The Qt desktop app: panes over the async core, run on a qasync event loop.

This is the only package that imports Qt. Every core call runs as an asyncio task through
`bridge.JobRunner`, so the window never waits on the library, a search or an import.

Importing this package applies `pyside_fixes` (a PySide6 reference-count bug aborts
Python 3.11 after a few thousand signals), so every user of these widgets is protected.
"""

from .pyside_fixes import pin_true

pin_true()
