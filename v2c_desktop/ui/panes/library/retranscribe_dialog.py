""" "Re-transcribe with…": choose one of the installed speech models for a saved local video.

A transcription takes a while and replaces the transcript, so the dialog says what the
video's words come from now, that the new ones replace them only once done (a cancel keeps
them), and where the progress shows. Models the catalog knows but this computer lacks are
listed greyed out with how to install them, so the choice is never a mystery. Opened with
`open()`, never `exec()`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from v2c_desktop.core.domain.speech import SpeechModelInfo

NAME_ROLE = Qt.ItemDataRole.UserRole + 1


def model_line(model: SpeechModelInfo) -> str:
    """A model as the list shows it: "Whisper tiny.en (CTranslate2) · English only · 78 MB"."""
    languages = "English only" if model.english_only else "many languages"
    size = f"{model.size_bytes / 1_000_000:.0f} MB"
    line = f"{model.label} · {languages} · {size}"
    return line if model.installed else f"{line} · not installed"


class RetranscribeDialog(QDialog):
    """Asks which installed speech model to transcribe `title` with.

    Signals:
        model_chosen(name): Transcribe was pressed with this model (`tiny.en`).
    """

    model_chosen = Signal(str)

    def __init__(
        self,
        title: str,
        current: str,
        models: list[SpeechModelInfo],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Re-transcribe with…")
        self.setObjectName("retranscribeDialog")
        intro = QLabel(f"Transcribe the speech of “{title}” again, on this computer.")
        intro.setObjectName("retranscribeIntro")
        intro.setTextFormat(Qt.TextFormat.PlainText)
        intro.setWordWrap(True)
        self.models = QComboBox()
        self.models.setObjectName("speechModels")
        items = self.models.model()
        assert isinstance(items, QStandardItemModel)
        for model in models:
            self.models.addItem(model_line(model))
            index = self.models.count() - 1
            self.models.setItemData(index, model.name, NAME_ROLE)
            tip = model.note if model.installed else f"Not installed: {model.install}"
            self.models.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
            item = items.item(index)
            if item is not None and not model.installed:
                item.setEnabled(False)
        installed = [i for i, m in enumerate(models) if m.installed]
        if installed:
            self.models.setCurrentIndex(installed[0])
        self.note = QLabel()
        self.note.setObjectName("speechModelNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.models.currentIndexChanged.connect(lambda _i: self._show_note(models))
        form = QFormLayout()
        self.current = QLabel(current)
        self.current.setObjectName("retranscribeCurrent")
        self.current.setTextFormat(Qt.TextFormat.PlainText)
        form.addRow("Transcript now:", self.current)
        form.addRow("Speech model:", self.models)
        after = QLabel(
            "The new transcript replaces the current one only when the transcription is "
            "done; cancelling it keeps the current one. Its progress, and a Cancel button, "
            "show under Imports."
        )
        after.setObjectName("retranscribeAfter")
        after.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.transcribe_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.transcribe_button.setText("Transcribe")
        self.transcribe_button.setEnabled(bool(installed))
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(after)
        layout.addWidget(self.buttons)
        self._show_note(models)
        if not installed:
            installs = "; ".join(sorted({m.install for m in models})) or "reinstall v2c"
            self.note.setText(f"No speech model is installed on this computer: {installs}")
        self.setMinimumWidth(460)

    def chosen(self) -> str:
        """The model name picked, or "" when none can be."""
        if not self.transcribe_button.isEnabled():
            return ""
        return str(self.models.currentData(NAME_ROLE) or "")

    def _show_note(self, models: list[SpeechModelInfo]) -> None:
        index = self.models.currentIndex()
        if 0 <= index < len(models):
            self.note.setText(models[index].note)

    def _accept(self) -> None:
        name = self.chosen()
        if name:
            self.model_chosen.emit(name)
            self.accept()
