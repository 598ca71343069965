"""The library pane: videos, collections, details with the transcript, imports."""
