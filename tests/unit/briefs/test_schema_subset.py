"""Your JSON Schema: the subset is accepted, anything else refused at once with a hint that
names the keyword and where it is."""

from __future__ import annotations

from typing import Any

import pytest

from v2c_desktop.core.briefs.schema_subset import check_schema
from v2c_desktop.core.errors import V2CError


def test_the_subset_and_annotations_pass() -> None:
    check_schema(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Cars",
            "type": "object",
            "properties": {
                "models": {
                    "type": "array",
                    "minItems": 1,
                    "uniqueItems": True,
                    "items": {"type": ["string", "null"], "maxLength": 40, "pattern": "^G"},
                },
                "price": {"type": "number", "exclusiveMinimum": 0, "description": "USD"},
                "kind": {"enum": ["suv", "sedan"]},
            },
            "required": ["models"],
            "additionalProperties": False,
        }
    )


@pytest.mark.parametrize(
    ("schema", "keyword", "where"),
    [
        ({"type": "object", "properties": {"a": {"$ref": "#/defs/a"}}}, "$ref", "#/properties/a"),
        ({"anyOf": [{"type": "string"}]}, "anyOf", "#"),
        ({"type": "array", "items": {"oneOf": []}}, "oneOf", "#/items"),
        ({"type": "object", "patternProperties": {}}, "patternProperties", "#"),
        ({"type": "array", "items": [{"type": "string"}]}, "items", "#"),
        ({"type": "text"}, "type", "#"),
        ({"not": {"type": "string"}}, "not", "#"),
    ],
)
def test_a_keyword_outside_the_subset_is_named_in_message_and_hint(
    schema: dict[str, Any], keyword: str, where: str
) -> None:
    with pytest.raises(V2CError) as caught:
        check_schema(schema)
    error = caught.value
    assert error.code == "bad-request"
    assert f"{where}/{keyword}" in error.message
    assert f"{keyword!r}" in error.hint and f"{where}/{keyword}" in error.hint
