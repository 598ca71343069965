"""Reading a JSON answer from a chat model, checking it, and asking once for a fix.

Even with `response_format`, servers that only support `json_object` (or ignore the field)
return text that may be fenced in Markdown, wrapped in prose or valid JSON of the wrong
shape. The schema is also stated in the prompt so such servers know what to produce, and
the validation error is sent back in the single repair call because it says what to fix.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import jsonschema

from ..types import ChatMessage

_MAX_PROBLEM_CHARS = 400


def schema_instruction(json_schema: dict[str, Any]) -> ChatMessage:
    """A system message that states the schema (also what `json_object` mode requires)."""
    schema = json.dumps(json_schema, ensure_ascii=False, separators=(",", ":"))
    return ChatMessage(
        "system",
        "Answer with one JSON object and nothing else, valid against this JSON Schema: " + schema,
    )


def with_schema(messages: Sequence[ChatMessage], json_schema: dict[str, Any]) -> list[ChatMessage]:
    return [schema_instruction(json_schema), *messages]


def repair_messages(
    messages: Sequence[ChatMessage], answer: str, problem: str
) -> list[ChatMessage]:
    """The conversation for the one repair call: the bad answer and what is wrong with it."""
    return [
        *messages,
        ChatMessage("assistant", answer),
        ChatMessage(
            "user",
            f"That answer is not valid: {problem}. Reply with only the corrected JSON object.",
        ),
    ]


def parse_object(text: str) -> tuple[dict[str, Any] | None, str]:
    """The JSON object in `text` (fences and surrounding prose ignored), or None and why."""
    candidates = [text.strip()]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    problem = "the answer is empty" if not text.strip() else "the answer is not JSON"
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError as exc:
            problem = f"the answer is not JSON ({exc})"
            continue
        if isinstance(value, dict):
            return value, ""
        problem = f"the answer is JSON but not an object (got {type(value).__name__})"
    return None, problem


def schema_problem(value: dict[str, Any], json_schema: dict[str, Any]) -> str:
    """Why `value` does not match `json_schema` ("" when it does)."""
    validator_class = jsonschema.validators.validator_for(json_schema)
    error = jsonschema.exceptions.best_match(validator_class(json_schema).iter_errors(value))
    if error is None:
        return ""
    where = "/".join(str(p) for p in error.absolute_path) or "the top level"
    return f"at {where}: {error.message}"[:_MAX_PROBLEM_CHARS]


def checked_object(text: str, json_schema: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """The object in `text` if it matches the schema, else None and the problem."""
    value, problem = parse_object(text)
    if value is None:
        return None, problem
    problem = schema_problem(value, json_schema)
    return (value, "") if not problem else (None, problem)
