"""`list_models`: which models this machine can use for `ask`, and in what order they are tried.

An agent choosing between answering itself and calling `ask` needs to know whether a capable
model exists at all. Models are a property of the machine and its settings, not of the
library, so this reads the model registry in our own process. Only the names of environment
variables holding API keys are shown, never their values.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.models.installed.manager import ModelManager
from v2c_desktop.core.models.registry import DEFAULT_EMBEDDER, ModelRegistry
from v2c_desktop.core.settings import ModelSettings, load_settings

from ..deps import Deps
from ..results import reads, structured_result
from ..schemas import ModelsOut
from ..tooling import add_tool

DETECT_TIMEOUT = 3.0

LIST_MODELS = """\
The models this machine can use for ask: catalog models (installed or how to install),
local GGUF files, configured OpenAI-compatible servers and detected Ollama / LM Studio,
each with kind, runtime, whether it is installed, local and capable, plus the chat chain in
the order ask tries it and the embedding model search uses. Env var names only, never
values. About 150 tokens per model."""

Kind = Annotated[
    Literal["chat", "embed"] | None,
    Field(description="Only chat models or only embedding models (default: both)."),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def list_models(kind: Kind = None) -> Annotated[CallToolResult, ModelsOut]:
        settings = load_settings().models
        registry = ModelRegistry(settings, ModelManager.default())
        try:
            if settings.detect_local_servers:
                with contextlib.suppress(TimeoutError):  # a slow probe is "nothing found"
                    await asyncio.wait_for(registry.detect(), DETECT_TIMEOUT)
            rows = model_rows(registry, settings)
            chain = [m.info.id for m in registry.chain()]
        finally:
            await registry.aclose()
        if kind is not None:
            rows = [r for r in rows if r["kind"] == kind]
        return structured_result(
            {
                "models": rows,
                "defaultPolicy": settings.policy,
                "chatChain": chain,
                "embeddingModel": settings.embed_model or DEFAULT_EMBEDDER,
            }
        )

    add_tool(
        server,
        list_models,
        name="list_models",
        description=LIST_MODELS,
        annotations=reads("List models", open_world=False),
    )


def model_rows(registry: ModelRegistry, settings: ModelSettings) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for state in registry.manager.list():
        entry = state.entry
        rows.append(
            {
                "id": state.id,
                "kind": state.kind,
                "runtime": state.runtime,
                "label": state.label,
                "source": "catalog" if entry is not None else "local-file",
                "installed": state.installed,
                "local": True,
                "capable": entry.capable if entry else True,
                "stream": state.kind == "chat",
                "contextWindow": entry.context_window if entry else None,
                "dimensions": entry.dimensions if entry else None,
                "sizeBytes": entry.size_bytes if entry else None,
                "licence": entry.licence if entry else None,
                "recommended": bool(entry and entry.recommended),
                "note": entry.note if entry else "",
                "install": None if state.installed else (state.how_to_install or None),
            }
        )
    configured = {s.name: s for s in settings.servers}
    for model in registry.chat_models():
        info = model.info
        if info.runtime != "openai-compat":
            continue
        server_name = info.id.split("/")[1] if info.id.count("/") >= 2 else ""
        setting = configured.get(server_name)
        rows.append(
            {
                "id": info.id,
                "kind": "chat",
                "runtime": info.runtime,
                "label": info.label,
                "source": "server" if setting is not None else "detected",
                "installed": True,
                "local": info.local,
                "capable": info.capable,
                "stream": True,
                "contextWindow": info.context_window,
                "apiKeyEnv": setting.api_key_env if setting is not None else None,
            }
        )
    for setting in settings.servers:
        for name in setting.embed_models:
            rows.append(
                {
                    "id": f"openai-compat/{setting.name}/{name}",
                    "kind": "embed",
                    "runtime": "openai-compat",
                    "label": f"{name} ({setting.name})",
                    "source": "server",
                    "installed": True,
                    "local": setting.local,
                    "capable": True,
                    "stream": False,
                    "apiKeyEnv": setting.api_key_env,
                }
            )
    return rows
