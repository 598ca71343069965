"""`brief`: a bottom line, then points by topic, each with the quotes that support or oppose it.

The bottom line carries its own evidence (`bottom_line_support`): it is the brief's main
claim, and a brief whose bottom line cites nothing that checks out never calls itself
complete. The field is optional in the schema, so an answer without it is still read (as
partial), never refused.
"""

from __future__ import annotations

from typing import Any

ID = "brief"
TITLE = "Brief"
INSTRUCTIONS = (
    "Write a brief that answers the question from the videos: a bottom line of two or three "
    "sentences first, with the evidence it rests on under `bottom_line_support`, then the "
    "points that matter, each under a short topic name. A point "
    "is one sentence. Put every piece of evidence for a point under `support`, and evidence "
    "against it under `oppose` (with a one-sentence `counter` saying what the other side "
    "holds). Say only what the videos say."
)


def data_schema(sources: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "title": {"type": "string", "maxLength": 120},
            "bottom_line": {"type": "string", "maxLength": 900},
            "bottom_line_support": sources,
            "points": {
                "type": "array",
                "maxItems": 12,
                "items": {
                    "type": "object",
                    "properties": {
                        "topic": {"type": "string", "maxLength": 60},
                        "text": {"type": "string", "maxLength": 400},
                        "support": sources,
                        "oppose": sources,
                        "counter": {"type": "string", "maxLength": 300},
                    },
                    "required": ["topic", "text", "support"],
                },
            },
        },
        "required": ["bottom_line", "points"],
    }


def headline(data: dict[str, Any]) -> str:
    return str(data.get("bottom_line") or "")
