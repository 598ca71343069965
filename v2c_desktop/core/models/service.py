"""The model service: list, pull, add, remove and test models, on the owner's registry.

One place builds the model rows every face shows, from the registry the owner's answers run
on, so a model pulled through `v2c models pull` while the app runs is at once one the app's
chat can use, and `v2c models list` run as a client lists the owner's models.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

from ..domain.models import DetectedServerInfo, InstalledModelInfo, ModelList, ModelRow, ModelTest
from ..errors import V2CError, bad_request
from ..progress import ProgressCallback, ignore_progress
from ..settings import ModelSettings, ServerSetting, Settings, save_settings
from .installed.manager import InstalledModel
from .openai_compat import OpenAICompatChatModel, list_models, server_from_setting
from .openai_compat.server import redact_url
from .registry import DEFAULT_EMBEDDER, ModelRegistry
from .speed import SPEEDS_FILE, SpeedLog, speed_of
from .types import ChatDelta, ChatDone, ChatMessage, ChatModel, ChatOptions, ModelCallFailed

#: How long looking for Ollama / LM Studio may take before it counts as "nothing found".
DETECT_TIMEOUT = 3.0
PROBE = [ChatMessage("user", "Name three primary colours in one short sentence.")]
EMBED_PROBE = [
    "Gradient descent adjusts the weights of a neural network step by step.",
    "Bitcoin miners compete to find a proof of work for the next block.",
] * 16


class ModelService:
    """Every model operation a face offers, over one registry (the owner's); `settings` are
    the owner's whole settings, saved when a server is added."""

    def __init__(self, registry: ModelRegistry, settings: Settings) -> None:
        self.registry = registry
        self.settings = settings
        self.speeds = SpeedLog(registry.manager.models_dir / SPEEDS_FILE)

    async def list_models(self, *, detect: bool = False) -> ModelList:
        """Catalog, local files, servers (and, with `detect`, Ollama / LM Studio now)."""
        if detect:
            await self.detect_servers()
        settings = self.registry.settings
        return ModelList(
            models=self._rows(),
            chat_chain=[m.info.id for m in self.registry.chain()],
            policy=settings.policy,
            embedding_model=settings.embed_model or DEFAULT_EMBEDDER,
        )

    async def detect_servers(self) -> list[DetectedServerInfo]:
        """Look for Ollama and LM Studio on this machine (a slow probe finds nothing)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.registry.detect(), DETECT_TIMEOUT)
        found = self.registry.detected
        return [DetectedServerInfo(s.name, s.base_url, tuple(s.models)) for s in found]

    async def use_server(self, server: DetectedServerInfo, quality: int) -> None:
        """Add a detected server to the settings (live, and saved for the next start)."""
        servers = self.registry.settings.servers
        if not any(s.base_url == server.base_url for s in servers):
            servers.append(
                ServerSetting(
                    name=server.name,
                    base_url=server.base_url,
                    chat_models=list(server.models),
                    quality=quality,
                    local=True,
                )
            )
        await asyncio.to_thread(save_settings, self.settings)

    async def apply_settings(self, models: ModelSettings) -> None:
        """Use these model settings from now on, without a restart: the policy, the chosen
        chat model, strict, and the servers (their models are rebuilt on next use). The
        embedding model, threads and unloading apply when the library is next opened."""
        self.registry.reconfigure(models)

    async def pull_model(
        self, model_id: str, progress: ProgressCallback = ignore_progress
    ) -> InstalledModelInfo:
        """Download a catalog model (resumed if a part is there); cancelling the awaiting
        task stops it and keeps the part, so the next pull resumes with a Range request."""
        return _info(await self.registry.manager.pull(model_id, progress=progress))

    async def add_model(self, path: str, kind: str = "chat") -> InstalledModelInfo:
        if kind not in ("chat", "embed"):
            raise bad_request(f"unknown model kind {kind!r}", "use chat or embed")
        manager = self.registry.manager
        model = await asyncio.to_thread(
            manager.add_local, Path(path).expanduser(), kind="embed" if kind == "embed" else "chat"
        )
        return _info(model)

    async def remove_model(self, model_id: str) -> str:
        await asyncio.to_thread(self.registry.manager.remove, model_id)
        await self.registry.forget(model_id)
        return model_id

    async def test_model(self, model_id: str | None = None) -> ModelTest:
        """Load a model and measure it: prompt and generation speed, or texts per second."""
        chats = {m.info.id: m for m in self.registry.chat_models()}
        if model_id is None:
            chain = self.registry.chain()
            if not chain:
                raise V2CError("not-found", "no chat model is installed", "{get-model}")
            model_id = chain[0].info.id
        if model_id in chats:
            model = chats[model_id]
            try:
                result = await _measure_chat(model)
            except ModelCallFailed as failure:
                setting = self._server_of(model_id)
                if setting is not None:
                    raise _server_failure(setting, failure) from None
                raise V2CError(
                    "upstream", f"{model_id} could not answer: {failure.detail or failure.reason}"
                ) from None
            if result.generation_tokens_per_s:
                size = self._file_size(model_id) if model.info.runtime == "llamacpp" else None
                await asyncio.to_thread(
                    self.speeds.record, model_id, result.generation_tokens_per_s, size
                )
            return result
        try:
            embedder = self.registry.embedder(model_id)
        except V2CError:
            raise bad_request(
                f"no model {model_id!r} is installed", "see `v2c models list`"
            ) from None
        started = time.perf_counter()
        await embedder.embed(EMBED_PROBE[:1])
        load = time.perf_counter() - started
        started = time.perf_counter()
        vectors = await embedder.embed(EMBED_PROBE)
        elapsed = time.perf_counter() - started
        return ModelTest(
            model=model_id,
            kind="embed",
            load_s=round(load, 3),
            dimensions=int(vectors.shape[1]),
            texts=len(EMBED_PROBE),
            texts_per_s=round(len(EMBED_PROBE) / elapsed, 1),
        )

    async def test_server(self, server: ServerSetting) -> ModelTest:
        """Try a server as typed (not yet saved): its first chat model, else the first
        model it lists, answers a short prompt; failures say what happened in plain words."""
        endpoint = server_from_setting(server)
        http = self.registry.http
        try:
            names = list(server.chat_models) or await list_models(endpoint, http)
            if not names:
                raise V2CError(
                    "not-found",
                    f"{server.name} answers at {redact_url(endpoint.base_url)} but serves no "
                    "models",
                    "load a model in it, or type a model name under Chat models",
                )
            model = OpenAICompatChatModel(
                endpoint, names[0], http=http, context_window=server.context_window
            )
            return await _measure_chat(model)
        except ModelCallFailed as failure:
            raise _server_failure(server, failure) from None

    def _server_of(self, model_id: str) -> ServerSetting | None:
        """The configured server an `openai-compat/<server>/<model>` id belongs to."""
        parts = model_id.split("/", 2)
        if len(parts) < 3 or parts[0] != "openai-compat":
            return None
        found = next((s for s in self.registry.settings.servers if s.name == parts[1]), None)
        if found is not None:
            return found
        detected = next((d for d in self.registry.detected if d.name == parts[1]), None)
        return ServerSetting(detected.name, detected.base_url) if detected else None

    def _file_size(self, model_id: str) -> int | None:
        try:
            return self.registry.manager.path_for(model_id).stat().st_size
        except (V2CError, OSError):
            return None

    def _rows(self) -> list[ModelRow]:
        rows: list[ModelRow] = []
        manager = self.registry.manager
        measured = self.speeds.read()
        for state in manager.list():
            entry = state.entry
            installed = state.installed_as
            size = entry.size_bytes if entry else (installed.size if installed else None)
            speed = (
                speed_of(state.id, size, measured, local_file=state.runtime == "llamacpp")
                if state.kind == "chat"
                else None
            )
            rows.append(
                ModelRow(
                    id=state.id,
                    kind="embed" if state.kind == "embed" else "chat",
                    runtime=state.runtime,
                    label=state.label,
                    source="catalog" if entry is not None else "local-file",
                    installed=state.installed,
                    capable=entry.capable if entry else True,
                    context_window=entry.context_window if entry else None,
                    dimensions=entry.dimensions if entry else None,
                    size_bytes=size,
                    licence=entry.licence if entry else None,
                    recommended=bool(entry and entry.recommended),
                    note=entry.note if entry else "",
                    install="" if state.installed else state.how_to_install,
                    path=str(installed.path) if installed else "",
                    removable=installed is not None and installed.source in ("catalog", "local"),
                    partial_bytes=0 if state.installed else manager.partial_size(state.id),
                    tokens_per_s=speed.tokens_per_s if speed else None,
                    speed=speed.kind if speed else "",
                )
            )
        settings = self.registry.settings
        configured = {s.name: s for s in settings.servers}
        for model in self.registry.chat_models():
            info = model.info
            if info.runtime != "openai-compat":
                continue
            server_name = info.id.split("/")[1] if info.id.count("/") >= 2 else ""
            setting = configured.get(server_name)
            own = measured.get(info.id)
            rows.append(
                ModelRow(
                    id=info.id,
                    kind="chat",
                    runtime=info.runtime,
                    label=info.label,
                    source="server" if setting is not None else "detected",
                    installed=True,
                    local=info.local,
                    capable=info.capable,
                    context_window=info.context_window,
                    api_key_env=setting.api_key_env if setting is not None else None,
                    tokens_per_s=own.tokens_per_s if own else None,
                    speed="measured" if own else "",
                )
            )
        for setting in settings.servers:
            for name in setting.embed_models:
                rows.append(
                    ModelRow(
                        id=f"openai-compat/{setting.name}/{name}",
                        kind="embed",
                        runtime="openai-compat",
                        label=f"{name} ({setting.name})",
                        source="server",
                        installed=True,
                        local=setting.local,
                        api_key_env=setting.api_key_env,
                    )
                )
        return rows


async def _measure_chat(model: ChatModel) -> ModelTest:
    started = time.perf_counter()
    text, done = "", None
    async for event in model.chat(PROBE, ChatOptions(max_tokens=48, temperature=0.0, seed=1)):
        if isinstance(event, ChatDelta):
            text += event.text
        elif isinstance(event, ChatDone):
            done = event
    total = time.perf_counter() - started
    if done is None:
        raise V2CError("internal", f"{model.info.id} ended without finishing its answer")
    usage = done.usage
    first = (usage.first_token_ms or 0) / 1000
    load = getattr(model, "load_ms", 0) / 1000  # a first use includes loading the model
    generation = max(1e-6, usage.ms / 1000 - first)
    return ModelTest(
        model=model.info.id,
        kind="chat",
        load_s=round(load, 3),
        first_token_s=round(first, 3),
        total_s=round(total, 3),
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        prompt_tokens_per_s=round(usage.prompt_tokens / max(first - load, 1e-6), 1),
        generation_tokens_per_s=round(usage.completion_tokens / generation, 1),
        answer=text.strip(),
    )


def _server_failure(server: ServerSetting, failure: ModelCallFailed) -> V2CError:
    """A server test's failure in plain words, with what to check."""
    where = f"{server.name} at {redact_url(server.base_url)}"
    details = {"reason": failure.reason, "detail": failure.detail}
    if failure.reason == "unreachable":
        return V2CError(
            "upstream",
            f"no answer from {where}: the server refused the connection or is not running",
            "start the server, or check the address (it usually ends in /v1)",
            details,
        )
    if failure.reason == "auth":
        return V2CError(
            "upstream",
            f"{where} refused the API key ({failure.detail})",
            "check the key, or the name of the environment variable that holds it",
            details,
        )
    if failure.reason == "timeout":
        return V2CError(
            "upstream",
            f"{where} did not answer in time",
            "the server may be busy loading a model: try again in a minute",
            details,
        )
    if failure.reason == "not-found":
        return V2CError(
            "upstream",
            f"{where} does not know that model ({failure.detail})",
            "check the model names under Chat models",
            details,
        )
    return V2CError(
        "upstream", f"{where} could not answer: {failure.detail or failure.reason}", "", details
    )


def _info(model: InstalledModel) -> InstalledModelInfo:
    return InstalledModelInfo(
        id=model.id,
        path=str(model.path),
        kind=model.kind,
        runtime=model.runtime,
        source=model.source,
        size=model.size,
        sha256=model.sha256,
        added_at=model.added_at,
    )
