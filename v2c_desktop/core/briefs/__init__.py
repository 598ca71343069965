"""Cited briefs and structured extraction over many videos (Qt-free; see `service`)."""
