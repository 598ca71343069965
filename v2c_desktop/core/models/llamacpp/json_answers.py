"""JSON answers from llama.cpp: schema → grammar, prompt wording, parse and validate.

The grammar makes the model emit JSON of the schema's *shape*, but llama.cpp's converter
does not enforce everything (integer `minimum`/`maximum`, `multipleOf`, `not`, most
`format`s), and a `max_tokens` cut can leave the object unfinished. So every answer is
parsed and validated with `jsonschema`, and one repair round trip is allowed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import jsonschema.exceptions
import jsonschema.protocols
import jsonschema.validators
from llama_cpp.llama_grammar import json_schema_to_gbnf

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.models.types import ChatMessage


def schema_validator(json_schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """A validator for the schema's own draft; a broken schema is the caller's error."""
    cls = jsonschema.validators.validator_for(json_schema)
    try:
        cls.check_schema(json_schema)
    except jsonschema.exceptions.SchemaError as error:
        raise V2CError(
            "bad-request", f"Invalid JSON Schema: {error.message}", "fix the schema"
        ) from error
    validator: jsonschema.protocols.Validator = cls(json_schema)
    return validator


def schema_grammar(json_schema: dict[str, Any]) -> str:
    """GBNF for the schema, via llama-cpp-python's own converter."""
    try:
        grammar: str = json_schema_to_gbnf(json.dumps(json_schema))
    except (AssertionError, KeyError, ValueError, TypeError) as error:
        raise V2CError(
            "bad-request",
            f"llama.cpp cannot turn this JSON Schema into a grammar: {error}",
            "simplify the schema (patterns must be anchored with ^...$, no remote $refs)",
        ) from error
    return grammar


def with_instruction(
    messages: Sequence[ChatMessage], json_schema: dict[str, Any]
) -> list[ChatMessage]:
    """Tell the model about the schema too: the grammar fixes the shape, not the meaning."""
    instruction = (
        "Reply with one JSON object and nothing else. It must be valid against this "
        f"JSON Schema:\n{json.dumps(json_schema, ensure_ascii=False)}"
    )
    out = list(messages)
    if out and out[0].role == "system":
        out[0] = ChatMessage("system", f"{out[0].content}\n\n{instruction}")
    else:
        out.insert(0, ChatMessage("system", instruction))
    return out


def parse_checked(
    text: str, validator: jsonschema.protocols.Validator, finish_reason: str
) -> tuple[dict[str, Any] | None, str]:
    """(object, "") when `text` is a valid JSON object, else (None, what is wrong)."""
    cut = " (the answer was cut off at max_tokens)" if finish_reason == "length" else ""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"not valid JSON: {error.msg} at character {error.pos}{cut}"
    if not isinstance(value, dict):
        return None, f"expected a JSON object, got {type(value).__name__}"
    problem = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if problem is not None:
        where = "/".join(str(part) for part in problem.absolute_path) or "(root)"
        return None, f"schema violation at {where}: {problem.message}"
    return value, ""


def repair_messages(
    messages: Sequence[ChatMessage], bad_output: str, problem: str
) -> list[ChatMessage]:
    """The conversation plus the bad answer and what is wrong with it."""
    return [
        *messages,
        ChatMessage("assistant", bad_output),
        ChatMessage(
            "user",
            f"That JSON is invalid: {problem}. Reply with the corrected JSON object only.",
        ),
    ]
