"""Which model answers: the registry's chat models (installed llama.cpp files, configured
servers, detected Ollama / LM Studio), automatic, or extractive quotes.

In the library's owner the registry is the one the answers run on, so detecting local
servers there also lets `ask` use them. A client of another owner lists the models with a
registry of its own (same settings and models folder); the owner resolves the id it sends.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from v2c_desktop.core.models.installed.manager import ModelManager
from v2c_desktop.core.models.registry import ModelRegistry
from v2c_desktop.core.models.types import ChatModel
from v2c_desktop.core.settings import Settings

AUTOMATIC = ""
EXTRACTIVE = "extractive"
EXTRACTIVE_TEXT = "Extractive (quote passages)"


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


def option_for(model: ChatModel) -> ModelOption:
    info = model.info
    label = info.label or info.id
    if not info.capable:
        label += " (test model: poor answers)"
    return ModelOption(info.id, label, info.capable, info.local)


class ChatModelSource:
    """Lists chat models from a registry; `own` registries are closed with the window."""

    def __init__(self, registry: ModelRegistry, own: bool = False) -> None:
        self.registry = registry
        self.own = own

    def choices(self) -> ModelChoices:
        options = [option_for(m) for m in self.registry.chat_models()]
        capable = [m for m in self.registry.chain() if m.info.capable]
        automatic = option_for(capable[0]).label if capable else ""
        return ModelChoices(options, automatic)

    async def list(self) -> ModelChoices:
        return self.choices()

    async def detect(self) -> ModelChoices:
        """Look for Ollama and LM Studio (at most about a second), then list again."""
        await self.registry.detect()
        return self.choices()

    async def aclose(self) -> None:
        if self.own:
            await self.registry.aclose()


def model_source_for(api: object, settings: Settings) -> ChatModelSource:
    from v2c_desktop.core.api import CoreAPI

    if isinstance(api, CoreAPI):  # this process owns the library: its own registry
        return ChatModelSource(api.services.registry)
    return ChatModelSource(ModelRegistry(settings.models, ModelManager.default()), own=True)


class ModelPicker(QWidget):
    """Signals:
    changed(label): the effective model's label ("" = extractive).
    """

    changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = QComboBox()
        self.combo.setObjectName("chatModel")
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.automatic = ""
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Model:"))
        layout.addWidget(self.combo)
        layout.addStretch(1)
        self.set_choices(ModelChoices([], ""))
        self.combo.currentIndexChanged.connect(lambda _i: self.changed.emit(self.effective()))

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
        self.combo.setCurrentIndex(max(0, self.combo.findData(current)))
        self.combo.blockSignals(False)
        self.changed.emit(self.effective())

    def select(self, model_id: str) -> bool:
        index = self.combo.findData(model_id)
        if index >= 0:
            self.combo.setCurrentIndex(index)
        return index >= 0

    def model_ids(self) -> list[str]:
        return [str(self.combo.itemData(i)) for i in range(self.combo.count())]

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
