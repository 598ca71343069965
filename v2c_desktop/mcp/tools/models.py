"""`list_models`: which models this machine can use for `ask`, and in what order they are tried.

An agent choosing between answering itself and calling `ask` needs to know whether a capable
model exists at all. The rows come from the library's owner (`CoreAPI.list_models`), whose
registry `ask` runs on. Only the names of environment variables holding API keys are shown,
never their values.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.domain.models import ModelRow

from ..deps import Deps
from ..results import reads, structured_result
from ..schemas import ModelsOut
from ..tooling import add_tool

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
        api = await deps.core()
        models = await api.list_models(detect=True)  # the owner's: the ones ask uses
        rows = [model_row(r) for r in models.models if kind is None or r.kind == kind]
        return structured_result(
            {
                "models": rows,
                "defaultPolicy": models.policy,
                "chatChain": models.chat_chain,
                "embeddingModel": models.embedding_model,
            }
        )

    add_tool(
        server,
        list_models,
        name="list_models",
        description=LIST_MODELS,
        annotations=reads("List models", open_world=False),
    )


def model_row(row: ModelRow) -> dict[str, Any]:
    """The MCP shape of a model row (camelCase; server rows name their key's variable)."""
    out: dict[str, Any] = {
        "id": row.id,
        "kind": row.kind,
        "runtime": row.runtime,
        "label": row.label,
        "source": row.source,
        "installed": row.installed,
        "local": row.local,
        "capable": row.capable,
        "stream": row.kind == "chat",
        "contextWindow": row.context_window,
    }
    if row.source in ("catalog", "local-file"):
        out.update(
            dimensions=row.dimensions,
            sizeBytes=row.size_bytes,
            licence=row.licence,
            recommended=row.recommended,
            note=row.note,
            install=row.install or None,
        )
    else:
        out["apiKeyEnv"] = row.api_key_env
    return out
