"""Adding videos: URLs (one per line), subtitle/media files or a folder, optionally into a
collection. Every dialog here is opened with `open()`, never `exec()`."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.file_kinds import MEDIA_EXTENSIONS, SUBTITLE_EXTENSIONS, URL_LIST_EXTENSIONS

NO_COLLECTION = "(no collection)"


def file_filter() -> str:
    subtitles = " ".join(f"*{e}" for e in sorted(SUBTITLE_EXTENSIONS))
    media = " ".join(f"*{e}" for e in sorted(MEDIA_EXTENSIONS))
    lists = " ".join(f"*{e}" for e in sorted(URL_LIST_EXTENSIONS))
    return ";;".join(
        [
            f"Subtitles and media ({subtitles} {media} *.info.json)",
            f"Subtitle files ({subtitles})",
            f"Media files ({media})",
            f"URL lists ({lists})",
            "All files (*)",
        ]
    )


OnPaths = Callable[[list[str]], object]


def pick_files(parent: QWidget, on_paths: OnPaths) -> QFileDialog:
    dialog = QFileDialog(parent, "Add subtitle or media files")
    dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
    dialog.setNameFilter(file_filter())
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def chosen(paths: list[str]) -> None:
        if paths:
            on_paths(list(paths))

    dialog.filesSelected.connect(chosen)
    dialog.open()
    return dialog


def pick_folder(parent: QWidget, on_paths: OnPaths) -> QFileDialog:
    dialog = QFileDialog(parent, "Add a folder of subtitles, media or yt-dlp downloads")
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def chosen(path: str) -> None:
        if path:
            on_paths([path])

    dialog.fileSelected.connect(chosen)
    dialog.open()
    return dialog


class AddDialog(QDialog):
    """Collects sources; `sources_chosen` fires when the user presses Add.

    `current` is the collection open in the library's sidebar: new videos go there unless
    the user picks another (or none).

    Signals:
        sources_chosen(sources, collection): `collection` is "" for none.
    """

    sources_chosen = Signal(list, str)

    def __init__(
        self, collections: list[str], parent: QWidget | None = None, *, current: str = ""
    ) -> None:
        super().__init__(parent)
        self.setObjectName("addDialog")
        self.setWindowTitle("Add videos")
        self.text = QPlainTextEdit()
        self.text.setObjectName("addSources")
        self.text.setPlaceholderText(
            "One per line: a video, playlist or channel URL, a file or a folder path"
        )
        files = QPushButton("Files…")
        folder = QPushButton("Folder…")
        files.clicked.connect(lambda: pick_files(self, self.append_sources))
        folder.clicked.connect(lambda: pick_folder(self, self.append_sources))
        pickers = QHBoxLayout()
        pickers.addWidget(files)
        pickers.addWidget(folder)
        pickers.addStretch(1)
        self.collection = QComboBox()
        self.collection.setEditable(True)
        self.collection.addItems([NO_COLLECTION, *sorted(collections, key=str.casefold)])
        if current and current in collections:
            self.collection.setCurrentIndex(self.collection.findText(current))
        self.collection.setToolTip("Type a new name to create a collection")
        form = QFormLayout()
        form.addRow("Into collection:", self.collection)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Add")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Paste URLs or paths, or pick files:"))
        layout.addWidget(self.text, 1)
        layout.addLayout(pickers)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.resize(560, 360)

    def append_sources(self, sources: list[str]) -> None:
        current = self.text.toPlainText().rstrip("\n")
        self.text.setPlainText("\n".join([current, *sources]).strip("\n"))

    def sources(self) -> list[str]:
        return [line.strip() for line in self.text.toPlainText().splitlines() if line.strip()]

    def collection_name(self) -> str:
        name = self.collection.currentText().strip()
        return "" if name == NO_COLLECTION else name

    def accept(self) -> None:
        sources = self.sources()
        if sources:
            self.sources_chosen.emit(sources, self.collection_name())
        super().accept()
