"""MCP sampling: asking the client's own model, through `sampling/createMessage`.

A client that declares the `sampling` capability lends its model (the user approves or
declines in the client): the request carries our system prompt and messages, and the answer
is the model's text. `sampler(ctx)` wraps that as the core's `Sampler`, so a core pipeline
(`core.briefs.digest`) runs on the client's model as on any other: a refusal, an error or a
client that cannot take requests becomes `ModelCallFailed` with the client's reason.

Sampling belongs to the handshake protocol (2025-11-25); the SDK marks it deprecated for
2026-07-28, where it moves into multi-round-trip results. Our callers offer a plan the agent
follows itself wherever sampling is not there.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from mcp.server.mcpserver import Context
from mcp.shared.exceptions import MCPError
from mcp.types import (
    ClientCapabilities,
    ModelPreferences,
    SamplingCapability,
    SamplingMessage,
    TextContent,
)

from v2c_desktop.core.briefs.digest import LENT_ID, ChatMessage, ModelCallFailed, Sampled, Sampler

#: A digest wants a strong model more than a fast or cheap one.
PREFERENCES = ModelPreferences(intelligence_priority=0.9, speed_priority=0.3, cost_priority=0.3)
TEMPERATURE = 0.2


def client_samples(ctx: Context[Any, Any]) -> bool:
    """Whether the client of this request declared the sampling capability."""
    try:
        return bool(
            ctx.session.check_client_capability(ClientCapabilities(sampling=SamplingCapability()))
        )
    except Exception:  # no session (a call from inside the server): nobody to ask
        return False


def sampler(ctx: Context[Any, Any]) -> Sampler:
    """The client's model as a core `Sampler`, each request tied to this tool call (so it
    rides the call's stream, and cancelling the call abandons it)."""

    async def sample(messages: Sequence[ChatMessage], max_tokens: int) -> Sampled:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        turns = [
            SamplingMessage(role=m.role, content=TextContent(type="text", text=m.content))
            for m in messages
            if m.role != "system"
        ]
        try:
            with warnings.catch_warnings():  # deprecated in the newest protocol only
                warnings.simplefilter("ignore")
                result = await ctx.session.create_message(
                    turns,
                    max_tokens=max_tokens,
                    system_prompt=system,
                    include_context="none",
                    temperature=TEMPERATURE,
                    model_preferences=PREFERENCES,
                    related_request_id=ctx.request_context.request_id,
                )
        except MCPError as error:  # declined by the user, or the client's own failure
            raise ModelCallFailed(LENT_ID, "declined", error.message) from None
        except Exception as exc:  # an answer that is not a CreateMessageResult, a broken pipe
            raise ModelCallFailed(LENT_ID, "failed", f"{type(exc).__name__}: {exc}") from None
        return Sampled(_text_of(result.content), result.model or "")

    return sample


def _text_of(content: Any) -> str:
    blocks = content if isinstance(content, list) else [content]
    return "".join(b.text for b in blocks if isinstance(b, TextContent))
