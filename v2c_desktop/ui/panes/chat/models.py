"""Which model answers: the owner's chat models (installed llama.cpp files, configured
servers, detected Ollama / LM Studio), automatic, or extractive quotes.

The list comes from the library's owner (`CoreAPI.list_models`), whose registry the
answers run on, so what the picker offers is what `ask` can use, in this process or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from v2c_desktop.core.domain.models import ModelList, ModelRow

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

AUTOMATIC = ""
EXTRACTIVE = "extractive"
EXTRACTIVE_TEXT = "Extractive (quote passages)"
GET_MODEL = "get-model"  # not a model: the entry that opens the model manager
GET_MODEL_TEXT = "Get a better model…"


@dataclass(frozen=True)
class ModelOption:
    id: str
    label: str
    capable: bool = True
    local: bool = True


@dataclass(frozen=True)
class ModelChoices:
    """The models offered, and what "automatic" means right now ("" = extractive)."""

    options: list[ModelOption]
    automatic: str


def option_for(row: ModelRow) -> ModelOption:
    label = row.label or row.id
    if not row.capable:
        label += " (test model: poor answers)"
    return ModelOption(row.id, label, row.capable, row.local)


def choices_of(models: ModelList) -> ModelChoices:
    """The installed chat models, and the first capable one of the chain as "automatic"."""
    rows = [r for r in models.of_kind("chat") if r.installed]
    by_id = {r.id: r for r in rows}
    capable = [by_id[i] for i in models.chat_chain if i in by_id and by_id[i].capable]
    automatic = option_for(capable[0]).label if capable else ""
    return ModelChoices([option_for(r) for r in rows], automatic)


class ChatModelSource:
    """Lists chat models through the library's API (the owner's registry)."""

    def __init__(self, api: CoreAPI) -> None:
        self.api = api

    async def list(self) -> ModelChoices:
        return choices_of(await self.api.list_models())

    async def detect(self) -> ModelChoices:
        """Look for Ollama and LM Studio (at most a few seconds), then list again."""
        return choices_of(await self.api.list_models(detect=True))

    async def aclose(self) -> None:
        """Nothing to close: the models belong to the library's owner."""


class ModelPicker(QWidget):
    """Signals:
    changed(label): the effective model's label ("" = extractive).
    get_model_requested(): "Get a better model…" was chosen (the choice stays as it was).
    """

    changed = Signal(str)
    get_model_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = QComboBox()
        self.combo.setObjectName("chatModel")
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.automatic = ""
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel("Model:")  # a form that labels its rows hides this one
        layout.addWidget(self.label)
        layout.addWidget(self.combo)
        layout.addStretch(1)
        self._chosen = 0  # the index to go back to when "Get a better model…" is chosen
        self.set_choices(ModelChoices([], ""))
        self.combo.currentIndexChanged.connect(self._index_changed)

    def _index_changed(self, index: int) -> None:
        if self.combo.itemData(index) == GET_MODEL:
            self.combo.blockSignals(True)
            self.combo.setCurrentIndex(self._chosen)
            self.combo.blockSignals(False)
            self.get_model_requested.emit()
            return
        self._chosen = index
        self.changed.emit(self.effective())

    def set_choices(self, choices: ModelChoices) -> None:
        current = self.combo.currentData() if self.combo.count() else AUTOMATIC
        self.automatic = choices.automatic
        self.combo.blockSignals(True)
        self.combo.clear()
        auto = f"Automatic: {choices.automatic or 'extractive (no capable model yet)'}"
        self.combo.addItem(auto, AUTOMATIC)
        for option in choices.options:
            self.combo.addItem(option.label, option.id)
            self.combo.setItemData(self.combo.count() - 1, option.id, Qt.ItemDataRole.ToolTipRole)
        self.combo.addItem(EXTRACTIVE_TEXT, EXTRACTIVE)
        self.combo.insertSeparator(self.combo.count())
        self.combo.addItem(GET_MODEL_TEXT, GET_MODEL)
        tip = "Download a model, add your own file or use a model server"
        self.combo.setItemData(self.combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.combo.setCurrentIndex(max(0, self.combo.findData(current)))
        self._chosen = self.combo.currentIndex()
        self.combo.blockSignals(False)
        self.changed.emit(self.effective())

    def select(self, model_id: str) -> bool:
        index = self.combo.findData(model_id)
        if index >= 0:
            self.combo.setCurrentIndex(index)
        return index >= 0

    def model_ids(self) -> list[str]:
        """The ids offered (automatic "", the models, "extractive"), not the other entries."""
        data = [self.combo.itemData(i) for i in range(self.combo.count())]
        return [str(d) for d in data if d is not None and d != GET_MODEL]

    def request(self) -> tuple[str | None, bool]:
        """(model id or None for automatic, extractive)."""
        data = str(self.combo.currentData() or AUTOMATIC)
        if data == EXTRACTIVE:
            return None, True
        return (data or None), False

    def effective(self) -> str:
        data = str(self.combo.currentData() or AUTOMATIC)
        if data == EXTRACTIVE:
            return ""
        if data == AUTOMATIC:
            return self.automatic
        return self.combo.currentText()
