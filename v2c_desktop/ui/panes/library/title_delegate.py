"""The title cell: the thumbnail, the title in a heavier weight, a quiet line under it.

Both lines are elided to the column's width (the whole title is the cell's tooltip), so a
long title never widens the table or pushes the other columns. In a narrow column the
thumbnail gives way to the title: the words matter more than the picture.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from .thumbnails import SIZE
from .videos_model import SECONDARY_ROLE

PAD = 6
#: Below this cell width the thumbnail is left out.
THUMBNAIL_MIN_CELL = SIZE.width() * 4
AnyIndex = QModelIndex | QPersistentModelIndex


class TitleDelegate(QStyledItemDelegate):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)

    def _fonts(self, option: QStyleOptionViewItem) -> tuple[QFont, QFont]:
        title = QFont(option.font)
        title.setWeight(QFont.Weight.DemiBold)
        small = QFont(option.font)
        small.setPointSizeF(max(6.0, small.pointSizeF() * 0.88))
        return title, small

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        title, small = self._fonts(option)
        text_height = QFontMetrics(title).height() + QFontMetrics(small).height() + 2
        return QSize(SIZE.width() + 3 * PAD + 120, max(SIZE.height(), text_height) + PAD)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text, opt.text = opt.text, ""
        opt.icon = type(opt.icon)()  # the style draws the background and focus only
        widget = opt.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = option.rect
        painter.save()
        pixmap = index.data(Qt.ItemDataRole.DecorationRole)
        x = rect.left() + PAD
        wide = rect.width() >= THUMBNAIL_MIN_CELL
        if wide and isinstance(pixmap, QPixmap) and not pixmap.isNull():
            y = rect.top() + (rect.height() - SIZE.height()) // 2
            painter.drawPixmap(QRect(x, y, SIZE.width(), SIZE.height()), pixmap)
            x += SIZE.width() + PAD
        width = max(0, rect.right() - PAD - x)
        title_font, small_font = self._fonts(option)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        group = (
            QPalette.ColorGroup.Active
            if option.state & QStyle.StateFlag.State_Active
            else QPalette.ColorGroup.Inactive
        )
        main = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        title_metrics, small_metrics = QFontMetrics(title_font), QFontMetrics(small_font)
        secondary = str(index.data(SECONDARY_ROLE) or "")
        height = title_metrics.height() + (small_metrics.height() + 1 if secondary else 0)
        top = rect.top() + (rect.height() - height) // 2
        painter.setFont(title_font)
        painter.setPen(option.palette.color(group, main))
        painter.drawText(
            QRect(x, top, width, title_metrics.height()),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            title_metrics.elidedText(text, Qt.TextElideMode.ElideRight, width),
        )
        if secondary:
            painter.setFont(small_font)
            quiet = option.palette.color(group, main)
            quiet.setAlphaF(0.65)
            painter.setPen(quiet)
            painter.drawText(
                QRect(x, top + title_metrics.height() + 1, width, small_metrics.height()),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                small_metrics.elidedText(secondary, Qt.TextElideMode.ElideRight, width),
            )
        painter.restore()
