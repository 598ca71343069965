"""The user's own JSON Schema: the subset a local model's grammar and our checks can honour.

Anything outside it (`$ref`, `anyOf`, `oneOf`, `allOf`, `not`, `if`, `patternProperties`,
tuple `items`, ...) fails at once with `bad-request` and a hint naming the keyword and where
it is, before any model runs: a schema half-understood would give data half-checked.
"""

from __future__ import annotations

from typing import Any

from ..errors import V2CError, bad_request

SUPPORTED = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
    }
)
ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "format",
        "$schema",
        "$id",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)
TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})


def check_schema(schema: object, where: str = "#") -> None:
    """Raise `bad-request` for the first unsupported part of `schema` (with its location)."""
    if not isinstance(schema, dict):
        raise _refuse(where, "a schema must be a JSON object", None)
    for key, value in schema.items():
        here = f"{where}/{key}"
        if key in ANNOTATIONS:
            continue
        if key not in SUPPORTED:
            raise _refuse(here, f"the keyword {key!r} is not supported", key)
        if key == "type":
            names = value if isinstance(value, list) else [value]
            bad = [n for n in names if n not in TYPES]
            if bad or not names:
                raise _refuse(here, f"unknown type {bad[0] if bad else value!r}", key)
        elif key == "properties":
            if not isinstance(value, dict):
                raise _refuse(here, "`properties` must map names to schemas", key)
            for name, sub in value.items():
                check_schema(sub, f"{here}/{name}")
        elif key == "items":
            if isinstance(value, list):
                raise _refuse(here, "tuple `items` (a list of schemas) is not supported", key)
            check_schema(value, here)
        elif key == "additionalProperties" and not isinstance(value, bool):
            check_schema(value, here)
        elif key == "required" and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            raise _refuse(here, "`required` must be a list of property names", key)


def _refuse(where: str, why: str, keyword: str | None) -> V2CError:
    """The refusal: the message says what and where; the hint names the keyword to change
    (an agent or a person fixing the schema reads the hint first) and what is supported."""
    change = f"change or remove {keyword!r} at {where}" if keyword else f"fix the schema at {where}"
    return bad_request(
        f"your JSON Schema cannot be used: {why} (at {where})",
        f"{change}; use only type, properties, required, additionalProperties, items, enum, "
        "const, minItems, maxItems, uniqueItems, minLength, maxLength, pattern, minimum, "
        "maximum, exclusiveMinimum, exclusiveMaximum and annotations such as title or "
        "description",
    )


def leaf_pointers(data: Any, prefix: str = "") -> list[str]:
    """JSON pointers of every leaf value (strings, numbers, booleans) in `data`."""
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in leaf_pointers(v, f"{prefix}/{_escape(k)}")]
    if isinstance(data, list):
        return [p for i, v in enumerate(data) for p in leaf_pointers(v, f"{prefix}/{i}")]
    return [prefix or ""] if data is not None else []


def _escape(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")
