"""`tutorial-steps`: the goal, what you need first, ordered steps with exact values, pitfalls."""

from __future__ import annotations

from typing import Any

ID = "tutorial-steps"
TITLE = "Tutorial steps"
INSTRUCTIONS = (
    "Turn what the videos show into a tutorial: the goal, the prerequisites, then the steps in "
    "order, each with the exact values the videos give (numbers, settings, names, commands), "
    "and the pitfalls they warn about. Every step carries the transcript evidence for it."
)


def data_schema(sources: dict[str, Any]) -> dict[str, Any]:
    text = {"type": "string", "maxLength": 400}
    return {
        "type": "object",
        "properties": {
            "goal": {"type": "string", "maxLength": 300},
            "prerequisites": {
                "type": "array",
                "maxItems": 8,
                "items": {
                    "type": "object",
                    "properties": {"text": text, "sources": sources},
                    "required": ["text", "sources"],
                },
            },
            "steps": {
                "type": "array",
                "maxItems": 20,
                "items": {
                    "type": "object",
                    "properties": {
                        "instruction": text,
                        "values": {"type": "array", "maxItems": 6, "items": text},
                        "sources": sources,
                    },
                    "required": ["instruction", "sources"],
                },
            },
            "pitfalls": {
                "type": "array",
                "maxItems": 8,
                "items": {
                    "type": "object",
                    "properties": {"text": text, "sources": sources},
                    "required": ["text", "sources"],
                },
            },
        },
        "required": ["goal", "steps"],
    }


def headline(data: dict[str, Any]) -> str:
    return str(data.get("goal") or "")
