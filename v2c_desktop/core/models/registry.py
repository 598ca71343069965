"""The models this user has: installed GGUF files, configured and detected servers, embedders.

Built once per app (or command) from the settings and the model manager; it keeps every
model object it made, so a loaded llama.cpp model stays warm between requests, and it
shares one cooldown table and one HTTP client across all server models.
"""

from __future__ import annotations

import copy
import dataclasses

import httpx

from ..errors import V2CError
from ..settings import ModelSettings
from .chain import ModelChoice, Policy, order_chain
from .installed.catalog import CatalogEntry
from .installed.manager import ModelManager, ModelState
from .llamacpp import LlamaCppChatModel, LlamaCppEmbeddingModel
from .onnx.embedder import OnnxEmbedder
from .openai_compat import (
    Cooldowns,
    DetectedServer,
    OpenAICompatChatModel,
    OpenAICompatEmbeddingModel,
    detect_local_servers,
    server_from_setting,
)
from .openai_compat.server import RUNTIME
from .types import ChatModel, EmbeddingModel

DEFAULT_EMBEDDER = "onnx/all-minilm-l6-v2-int8w7"
#: Embedder ids that settings saved by earlier versions may still name. The search index
#: records the id it was built with, so a library indexed with the old file re-embeds once
#: (reported as `reindexed_from`) instead of mixing vectors of two quantisations.
#: `-qint8` had full-range int8 weights, whose vectors differed between CPUs with and
#: without AVX-512 VNNI (packaging/quantize_embedder.py says why).
RENAMED_EMBEDDERS = {
    "onnx/all-minilm-l6-v2": DEFAULT_EMBEDDER,
    "onnx/all-minilm-l6-v2-qint8": DEFAULT_EMBEDDER,
}
DETECTED_QUALITY = 40


def _local_quality(state: ModelState) -> int:
    """Bigger quantised models answer better; size is the honest proxy we have."""
    entry = state.entry
    if entry is None:
        return 20
    if not entry.capable:
        return 0
    return 20 + min(60, entry.size_bytes // 100_000_000)


class ModelRegistry:
    def __init__(
        self,
        settings: ModelSettings,
        manager: ModelManager,
        *,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.settings = settings
        self.manager = manager
        self.http = http or httpx.AsyncClient(timeout=httpx.Timeout(120.0, connect=5.0))
        self.cooldowns = Cooldowns()
        self._chat: dict[str, ChatModel] = {}
        self._embedders: dict[str, EmbeddingModel] = {}
        self.detected: list[DetectedServer] = []

    # -- chat ---------------------------------------------------------------------------------
    def chat_models(self) -> list[ChatModel]:
        """Every chat model the user can use now, built on first request and then kept."""
        for state in self.manager.list():
            if state.kind == "chat" and state.installed and state.id not in self._chat:
                self._chat[state.id] = self._local_chat(state)
        for setting in self.settings.servers:
            server = server_from_setting(setting)
            for name in setting.chat_models:
                model = OpenAICompatChatModel(
                    server,
                    name,
                    http=self.http,
                    context_window=setting.context_window,
                    quality=setting.quality,
                    cooldowns=self.cooldowns,
                )
                self._chat.setdefault(model.info.id, model)
        for found in self.detected:
            server = found.server()
            for name in found.models:
                model = OpenAICompatChatModel(
                    server,
                    name,
                    http=self.http,
                    quality=DETECTED_QUALITY,
                    cooldowns=self.cooldowns,
                )
                self._chat.setdefault(model.info.id, model)
        return list(self._chat.values())

    def _local_chat(self, state: ModelState) -> ChatModel:
        path = self.manager.path_for(state.id)
        entry = state.entry
        model = LlamaCppChatModel(
            path,
            model_id=state.id,
            context_window=min(entry.context_window, 8192) if entry else 4096,
            chat_format=entry.chat_format if entry else None,
            n_threads=self.settings.threads,
            idle_unload_s=self.settings.idle_unload_s,
            capable=entry.capable if entry else True,
            label=state.label,
        )
        model.info = dataclasses.replace(model.info, quality=_local_quality(state))
        return model

    def reconfigure(self, settings: ModelSettings) -> None:
        """Take these settings from now on, in place: the service and the chain read this same
        object. Server models are rebuilt from them on next use (a server's address, key or
        model list may have changed); loaded local models stay loaded."""
        for item in dataclasses.fields(ModelSettings):
            setattr(self.settings, item.name, copy.deepcopy(getattr(settings, item.name)))
        for model_id, model in list(self._chat.items()):
            if model.info.runtime == RUNTIME:
                del self._chat[model_id]  # shares self.http: nothing of its own to close

    async def detect(self) -> list[DetectedServer]:
        """Look for Ollama and LM Studio on this machine (when the setting allows)."""
        if self.settings.detect_local_servers:
            self.detected = await detect_local_servers(self.http)
        return self.detected

    def default_choice(self) -> ModelChoice:
        policy: Policy = "quality" if self.settings.policy == "quality" else "local-only"
        return ModelChoice(policy, self.settings.chat_model, self.settings.strict)

    def chain(self, choice: ModelChoice | None = None) -> list[ChatModel]:
        return order_chain(self.chat_models(), choice or self.default_choice())

    def writing_chain(
        self, model: str | None = None, strict: bool = False
    ) -> tuple[list[ChatModel], str]:
        """The models that write a brief or choose key moments, and why none when so.

        A model the user names is used even if it is a plumbing model (they asked for it),
        `strict`: that one or an error; otherwise the chain's capable models. An empty chain
        comes with the reason in plain words: the caller then works without a model.
        """
        if model:
            return self.chain(ModelChoice(self.default_choice().policy, model, strict)), ""
        chain = [m for m in self.chain() if m.info.capable]
        return (chain, "") if chain else ([], self.why_no_capable_chat())

    def capable_chat_available(self) -> bool:
        return any(m.info.capable for m in self.chain())

    def why_no_capable_chat(self) -> str:
        """Why no model can write answers, in plain words (call when none can)."""
        chat = [state for state in self.manager.list() if state.kind == "chat"]
        weak = [
            state.label
            for state in chat
            if state.installed and state.entry is not None and not state.entry.capable
        ]
        if weak:
            return (
                f"the only chat model installed ({', '.join(weak)}) is a small test model "
                "that cannot write useful answers"
            )
        return "no chat model is installed and no Ollama or LM Studio server is running"

    def suggested_chat_model(self) -> CatalogEntry | None:
        """The smallest recommended capable chat model not installed yet, if any."""
        missing = [
            state.entry
            for state in self.manager.list()
            if state.kind == "chat" and not state.installed and state.entry is not None
        ]
        good = [entry for entry in missing if entry.recommended and entry.capable]
        return min(good, key=lambda entry: entry.size_bytes, default=None)

    # -- embeddings ---------------------------------------------------------------------------
    def embedder(self, model_id: str | None = None) -> EmbeddingModel:
        wanted = model_id or self.settings.embed_model or DEFAULT_EMBEDDER
        wanted = RENAMED_EMBEDDERS.get(wanted, wanted)
        if wanted in self._embedders:
            return self._embedders[wanted]
        model: EmbeddingModel
        if wanted == DEFAULT_EMBEDDER:
            model = OnnxEmbedder(
                idle_unload_s=self.settings.idle_unload_s, threads=self.settings.threads
            )
        elif wanted.startswith("llamacpp/"):
            model = LlamaCppEmbeddingModel(
                self.manager.path_for(wanted),
                model_id=wanted,
                idle_unload_s=self.settings.idle_unload_s,
            )
        elif wanted.startswith("openai-compat/"):
            _, name, model_name = wanted.split("/", 2)
            setting = next((s for s in self.settings.servers if s.name == name), None)
            if setting is None:
                raise V2CError(
                    "not-found",
                    f"no server {name!r} is configured for {wanted}",
                    f"add the server in settings, or use {DEFAULT_EMBEDDER}",
                )
            model = OpenAICompatEmbeddingModel(
                server_from_setting(setting),
                model_name,
                http=self.http,
                cooldowns=self.cooldowns,
            )
        else:
            raise V2CError(
                "not-found",
                f"unknown embedding model {wanted!r}",
                "see `v2c models list` for the embedding models you have",
            )
        self._embedders[wanted] = model
        return model

    async def forget(self, model_id: str) -> None:
        """Drop a model that was removed (closing it if it was loaded)."""
        chat = self._chat.pop(model_id, None)
        if chat is not None:
            await chat.aclose()
        embedder = self._embedders.pop(model_id, None)
        if embedder is not None:
            await embedder.aclose()

    async def aclose(self) -> None:
        for chat in self._chat.values():
            await chat.aclose()
        for embedder in self._embedders.values():
            await embedder.aclose()
        await self.http.aclose()
