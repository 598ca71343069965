"""Thumbnails for the library table, asked of the core and never waited for.

The table asks for a row's picture when it paints the row. The first ask starts a quiet job
(`CoreAPI.thumbnail`: an image beside the local file, or the video's thumbnail URL
downloaded once into the cache) and answers with the placeholder; the image file is read
and scaled on a worker thread (QImage is safe there; QPixmap is made on the GUI thread), and
`ready` tells the table to paint the row again. A video without a picture keeps the
placeholder: a quiet frame with a play mark, drawn in the palette's colours.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QImage, QPainter, QPainterPath, QPalette, QPixmap, QPolygonF
from PySide6.QtWidgets import QApplication

from v2c_desktop.core.errors import V2CError

from ...bridge import JobRunner

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

SIZE = QSize(64, 36)


def load_scaled(path: str, size: QSize) -> QImage | None:
    """The image at `path` scaled to cover `size` and cropped to it (runs off the GUI)."""
    image = QImage(path)
    if image.isNull():
        return None
    scaled = image.scaled(
        size,
        Qt.AspectRatioMode.KeepAspectRatioByExpanding,
        Qt.TransformationMode.SmoothTransformation,
    )
    x = (scaled.width() - size.width()) // 2
    y = (scaled.height() - size.height()) // 2
    return scaled.copy(x, y, size.width(), size.height())


def placeholder(size: QSize, palette: QPalette) -> QPixmap:
    pixmap = QPixmap(size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    frame = QRectF(0.5, 0.5, size.width() - 1, size.height() - 1)
    path = QPainterPath()
    path.addRoundedRect(frame, 4, 4)
    painter.fillPath(path, palette.brush(QPalette.ColorRole.Midlight))
    painter.setPen(palette.color(QPalette.ColorRole.Mid))
    painter.drawPath(path)
    h = size.height() * 0.36
    cx, cy = size.width() / 2 + h * 0.15, size.height() / 2
    mark = QPolygonF(
        [QPointF(cx - h / 2, cy - h / 2), QPointF(cx - h / 2, cy + h / 2), QPointF(cx + h / 2, cy)]
    )
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(palette.brush(QPalette.ColorRole.Mid))
    painter.drawPolygon(mark)
    painter.end()
    return pixmap


def rounded(image: QImage) -> QPixmap:
    pixmap = QPixmap(image.size())
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    path = QPainterPath()
    path.addRoundedRect(QRectF(0, 0, image.width(), image.height()), 4, 4)
    painter.setClipPath(path)
    painter.drawImage(0, 0, image)
    painter.end()
    return pixmap


class ThumbnailSource(QObject):
    """Pictures by video id; asks the core at most once per video.

    Signals:
        ready(video_id): the video's picture is known now (a real one or "none").
    """

    ready = Signal(str)

    def __init__(
        self, api: CoreAPI, runner: JobRunner, size: QSize = SIZE, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._api = api
        self._runner = runner
        self.size = size
        self._pixmaps: dict[str, QPixmap | None] = {}  # None: none to show
        self._asked: set[str] = set()
        self._placeholder: QPixmap | None = None

    def placeholder(self) -> QPixmap:
        if self._placeholder is None:
            self._placeholder = placeholder(self.size, QApplication.palette())
        return self._placeholder

    def has_picture(self, video_id: str) -> bool:
        return self._pixmaps.get(video_id) is not None

    def known(self, video_id: str) -> bool:
        return video_id in self._pixmaps

    def pixmap(self, video_id: str) -> QPixmap:
        """The video's picture, or the placeholder while it is fetched or when it has none."""
        found = self._pixmaps.get(video_id)
        if found is not None:
            return found
        if video_id not in self._asked:
            self._asked.add(video_id)
            self._runner.start(
                lambda _p: self._fetch(video_id),
                label="thumbnail",
                on_finished=lambda image: self._arrived(video_id, image),
            )
        return self.placeholder()

    def forget_missing(self) -> None:
        """Ask again for the videos that had no picture (after the library changed)."""
        for video_id in [v for v, p in self._pixmaps.items() if p is None]:
            del self._pixmaps[video_id]
            self._asked.discard(video_id)

    async def _fetch(self, video_id: str) -> QImage | None:
        try:
            path = await self._api.thumbnail(video_id)
        except V2CError:
            return None  # gone since the row was painted: nothing to show, nothing to say
        if not path:
            return None
        return await asyncio.to_thread(load_scaled, path, self.size)

    def _arrived(self, video_id: str, image: QImage | None) -> None:
        self._pixmaps[video_id] = rounded(image) if image is not None else None
        self.ready.emit(video_id)
