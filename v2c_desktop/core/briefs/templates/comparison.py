"""`comparison`: options (rows) by criteria (columns), every cell cited, and a cited verdict."""

from __future__ import annotations

from typing import Any

ID = "comparison"
TITLE = "Comparison"
INSTRUCTIONS = (
    "Compare the options the question is about on the criteria that matter in the videos: "
    "list the criteria, then each option with one cell per criterion (what the videos say, "
    "with its evidence), and a verdict with its evidence. Leave a cell out when the videos "
    "say nothing about it."
)


def data_schema(sources: dict[str, Any]) -> dict[str, Any]:
    text = {"type": "string", "maxLength": 300}
    return {
        "type": "object",
        "properties": {
            "criteria": {"type": "array", "maxItems": 8, "items": {"type": "string"}},
            "options": {
                "type": "array",
                "maxItems": 8,
                "items": {
                    "type": "object",
                    "properties": {
                        "name": text,
                        "cells": {
                            "type": "array",
                            "maxItems": 8,
                            "items": {
                                "type": "object",
                                "properties": {
                                    "criterion": text,
                                    "value": text,
                                    "sources": sources,
                                },
                                "required": ["criterion", "value", "sources"],
                            },
                        },
                    },
                    "required": ["name", "cells"],
                },
            },
            "verdict": {
                "type": "object",
                "properties": {"text": text, "sources": sources},
                "required": ["text", "sources"],
            },
        },
        "required": ["criteria", "options", "verdict"],
    }


def headline(data: dict[str, Any]) -> str:
    verdict = data.get("verdict")
    return str(verdict.get("text") or "") if isinstance(verdict, dict) else ""
