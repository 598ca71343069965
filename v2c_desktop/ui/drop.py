"""What a drop on the window means: URLs and local paths to import."""

from __future__ import annotations

from PySide6.QtCore import QMimeData

from v2c_desktop.core.ids import is_web


def dropped_sources(mime: QMimeData) -> list[str]:
    """Local files and folders as paths, web pages as URLs, in the order they were dropped."""
    sources: list[str] = []
    if mime.hasUrls():
        for url in mime.urls():
            if url.isLocalFile():
                sources.append(url.toLocalFile())
            elif is_web(url.toString()):
                sources.append(url.toString())
    elif mime.hasText():
        for line in mime.text().splitlines():
            line = line.strip()
            if is_web(line):
                sources.append(line)
    return list(dict.fromkeys(sources))
