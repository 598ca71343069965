"""`summary`: one paragraph and the key points, each cited (the default of `extract`)."""

from __future__ import annotations

from typing import Any

ID = "summary"
TITLE = "Summary"
INSTRUCTIONS = (
    "Summarise what the videos say about the question: one paragraph, then the key points, "
    "one sentence each, every key point with the transcript evidence that supports it."
)


def data_schema(sources: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "summary": {"type": "string", "maxLength": 1200},
            "key_points": {
                "type": "array",
                "maxItems": 10,
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "maxLength": 400},
                        "sources": sources,
                    },
                    "required": ["text", "sources"],
                },
            },
        },
        "required": ["summary", "key_points"],
    }


def headline(data: dict[str, Any]) -> str:
    return str(data.get("summary") or "")
