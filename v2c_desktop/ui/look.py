"""The app's look in one place: the style, the light and dark palettes, spacing and type.

`follow_system(app)` puts the Fusion style on the application with the palette of the
system's colour scheme (Qt 6.5+ `QStyleHints.colorScheme()`), and switches palette whenever
`colorSchemeChanged` says the system did (the user turned dark mode on): every open window
repaints in the new colours, and the icons (`icons.py`) are drawn again in them. An unknown
scheme (the offscreen platform, an old desktop) is light.

Spacing and type are named here so panes and dialogs share them: `GAP` between the widgets
of a row, `MARGIN` inside a pane or dialog, `SECTION` between groups; `font(role)` is the
application font at the size and weight of a role (a title, a heading, small print).
"""

from __future__ import annotations

import contextlib
from typing import Literal

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QLayout, QStyleFactory, QWidget

Scheme = Literal["light", "dark"]
Role = Literal["title", "heading", "body", "small", "mono"]

# -- spacing (pixels) -----------------------------------------------------------------------
GAP = 6  # between the widgets of one row or column
MARGIN = 8  # inside a pane, a dock or a dialog
SECTION = 14  # between groups of a dialog or a pane
NAVIGATION_WIDTH = 120  # the pane list on the left

# -- type: sizes relative to the application font -------------------------------------------
_SCALE: dict[Role, float] = {"title": 1.3, "heading": 1.12, "body": 1.0, "small": 0.9, "mono": 1.0}
_WEIGHT: dict[Role, QFont.Weight] = {
    "title": QFont.Weight.DemiBold,
    "heading": QFont.Weight.DemiBold,
    "body": QFont.Weight.Normal,
    "small": QFont.Weight.Normal,
    "mono": QFont.Weight.Normal,
}

# -- palettes: (role, colour), with the disabled group derived ------------------------------
LIGHT: dict[QPalette.ColorRole, str] = {
    QPalette.ColorRole.Window: "#f3f3f5",
    QPalette.ColorRole.WindowText: "#1d1d1f",
    QPalette.ColorRole.Base: "#ffffff",
    QPalette.ColorRole.AlternateBase: "#f6f7f9",
    QPalette.ColorRole.ToolTipBase: "#ffffe8",
    QPalette.ColorRole.ToolTipText: "#1d1d1f",
    QPalette.ColorRole.PlaceholderText: "#7b7d82",
    QPalette.ColorRole.Text: "#1d1d1f",
    QPalette.ColorRole.Button: "#ececef",
    QPalette.ColorRole.ButtonText: "#1d1d1f",
    QPalette.ColorRole.BrightText: "#d0021b",
    QPalette.ColorRole.Light: "#ffffff",
    QPalette.ColorRole.Midlight: "#e2e3e7",
    QPalette.ColorRole.Mid: "#b9bbc1",
    QPalette.ColorRole.Dark: "#8e9097",
    QPalette.ColorRole.Shadow: "#4a4b50",
    QPalette.ColorRole.Highlight: "#2f6fd6",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#1a5fc9",
    QPalette.ColorRole.LinkVisited: "#6b3fb8",
    QPalette.ColorRole.Accent: "#2f6fd6",
}
DARK: dict[QPalette.ColorRole, str] = {
    QPalette.ColorRole.Window: "#26272b",
    QPalette.ColorRole.WindowText: "#e6e6e9",
    QPalette.ColorRole.Base: "#1c1d20",
    QPalette.ColorRole.AlternateBase: "#232428",
    QPalette.ColorRole.ToolTipBase: "#34353a",
    QPalette.ColorRole.ToolTipText: "#e6e6e9",
    QPalette.ColorRole.PlaceholderText: "#8b8d93",
    QPalette.ColorRole.Text: "#e6e6e9",
    QPalette.ColorRole.Button: "#323338",
    QPalette.ColorRole.ButtonText: "#e6e6e9",
    QPalette.ColorRole.BrightText: "#ff6b6b",
    QPalette.ColorRole.Light: "#45464c",
    QPalette.ColorRole.Midlight: "#3a3b40",
    QPalette.ColorRole.Mid: "#55565c",
    QPalette.ColorRole.Dark: "#17181a",
    QPalette.ColorRole.Shadow: "#0b0b0c",
    QPalette.ColorRole.Highlight: "#3d7be0",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#7fb0ff",
    QPalette.ColorRole.LinkVisited: "#c39bff",
    QPalette.ColorRole.Accent: "#3d7be0",
}
_DISABLED = (
    QPalette.ColorRole.WindowText,
    QPalette.ColorRole.Text,
    QPalette.ColorRole.ButtonText,
    QPalette.ColorRole.Link,
)


def palette(scheme: Scheme) -> QPalette:
    """The palette of `scheme`: every role set, disabled text faded towards the window."""
    colours = DARK if scheme == "dark" else LIGHT
    result = QPalette()
    for role, colour in colours.items():
        result.setColor(role, QColor(colour))
    window = QColor(colours[QPalette.ColorRole.Window])
    for role in _DISABLED:
        faded = _mix(QColor(colours[role]), window, 0.55)
        result.setColor(QPalette.ColorGroup.Disabled, role, faded)
    result.setColor(
        QPalette.ColorGroup.Disabled,
        QPalette.ColorRole.Highlight,
        QColor(colours[QPalette.ColorRole.Mid]),
    )
    # an unfocused window keeps its selection readable (Fusion greys it otherwise)
    result.setColor(
        QPalette.ColorGroup.Inactive,
        QPalette.ColorRole.Highlight,
        _mix(QColor(colours[QPalette.ColorRole.Highlight]), window, 0.8),
    )
    return result


def _mix(a: QColor, b: QColor, share_of_a: float) -> QColor:
    s = share_of_a
    return QColor(
        round(a.red() * s + b.red() * (1 - s)),
        round(a.green() * s + b.green() * (1 - s)),
        round(a.blue() * s + b.blue() * (1 - s)),
    )


def scheme_of(palette_: QPalette) -> Scheme:
    """Whether a palette is dark (its window darker than mid-grey)."""
    dark = palette_.color(QPalette.ColorRole.Window).lightnessF() < 0.5
    return "dark" if dark else "light"


def scheme_from_qt(value: Qt.ColorScheme) -> Scheme:
    return "dark" if value == Qt.ColorScheme.Dark else "light"


def font(role: Role, base: QFont | None = None) -> QFont:
    """The application font (or `base`) at the size and weight of `role`."""
    if role == "mono":
        result = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    else:
        result = QFont(base if base is not None else QApplication.font())
    size = result.pointSizeF()
    if size > 0:
        result.setPointSizeF(round(size * _SCALE[role], 1))
    result.setWeight(_WEIGHT[role])
    return result


def pad(layout: QLayout, *, margin: int = MARGIN, gap: int = GAP) -> QLayout:
    """Give a layout the app's margins and spacing; returns it."""
    layout.setContentsMargins(margin, margin, margin, margin)
    layout.setSpacing(gap)
    return layout


def soft_text(widget: QWidget) -> QColor:
    """A secondary text colour on `widget`'s palette (captions, counts, hints)."""
    colours = widget.palette()
    return _mix(
        colours.color(QPalette.ColorRole.WindowText), colours.color(QPalette.ColorRole.Window), 0.7
    )


class Look(QObject):
    """The look applied to an application, following the system's colour scheme.

    Signals:
        changed(scheme): the palette switched ("light" or "dark").
    """

    changed = Signal(str)

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self._app = app
        self.scheme: Scheme = "light"
        self._hints = QGuiApplication.styleHints()
        self._hints.colorSchemeChanged.connect(self._system_changed)

    def _system_changed(self, value: Qt.ColorScheme) -> None:
        self.apply(scheme_from_qt(value))

    def apply(self, scheme: Scheme) -> None:
        """Put `scheme`'s palette on the application (every window repaints in it)."""
        self.scheme = scheme
        self._app.setPalette(palette(scheme))
        from .icons import retint

        retint()
        self.changed.emit(scheme)

    def stop(self) -> None:
        """Stop following the system (the app's session ended)."""
        with contextlib.suppress(RuntimeError, TypeError):
            self._hints.colorSchemeChanged.disconnect(self._system_changed)


def follow_system(app: QApplication) -> Look:
    """Fusion with the palette of the system's colour scheme, switched when the scheme
    changes; the `Look` (its `stop()` ends the following)."""
    fusion = QStyleFactory.create("Fusion")
    if fusion is not None:
        app.setStyle(fusion)
    look = Look(app)
    look.apply(scheme_from_qt(QGuiApplication.styleHints().colorScheme()))
    return look
