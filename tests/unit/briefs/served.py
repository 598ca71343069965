"""The scripted brief writer behind a real OpenAI-compatible server (tests only).

`ServedWriter` answers `/v1/chat/completions` requests of `tests/support/openai_server.py`
in JSON mode from what their prompt holds, so the real HTTP client, its JSON-schema
`response_format`, its parsing and its one repair call all run as they do against
Ollama or llama-server.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.support.openai_server import RecordedRequest, Reply
from tests.unit.briefs.scripted import BriefWriter
from v2c_desktop.core.models.types import ChatMessage
from v2c_desktop.core.settings import ModelSettings, ServerSetting

#: how the client's repair request begins (`openai_compat/json_answers.repair_messages`)
REPAIR = "That answer is not valid"
HOST, MODEL = "testhost", "brief-model"
MODEL_ID = f"openai-compat/{HOST}/{MODEL}"


class ServedWriter:
    """Answers each chat request as the scripted writer would.

    `broken` organising answers (the reduce step's, or a single pass's) are cut-off JSON,
    so the client's one repair call has work to do: a repair request is answered from the
    conversation before the bad answer, as a model that reads the error would.
    """

    def __init__(self, broken: int = 0) -> None:
        self.writer = BriefWriter(model_id="served")
        self.schemas: list[str] = []
        self.broken = broken
        self.repairs: list[str] = []

    def __call__(self, request: RecordedRequest) -> Reply:
        body = request.body
        schema = body["response_format"]["json_schema"]["schema"]
        self.schemas.append(body["response_format"]["type"])
        messages = [ChatMessage(m["role"], m["content"]) for m in body["messages"]]
        if messages[-1].role == "user" and messages[-1].content.startswith(REPAIR):
            self.repairs.append(messages[-1].content)
            messages = messages[:-2]  # the bad answer and the request to fix it
        if self.broken and "points" in schema.get("properties", {}):
            self.broken -= 1
            return reply(body, '{"title": "Memory", "points": [{"topic": "Mem')
        answer = asyncio.run(self.writer.complete_json(messages, schema))
        return reply(body, json.dumps(answer))


def reply(body: dict[str, Any], content: str) -> Reply:
    """A non-streamed chat completion holding `content`."""
    return Reply(
        payload={
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }
    )


def server_models(base_url: str, context_window: int = 4096) -> ModelSettings:
    """Model settings with the test server as the one chat model (`MODEL_ID`); a small
    window by default, so two videos need map-reduce."""
    return ModelSettings(
        servers=[
            ServerSetting(
                name=HOST,
                base_url=base_url,
                chat_models=[MODEL],
                context_window=context_window,
                local=True,
            )
        ],
        detect_local_servers=False,
    )
