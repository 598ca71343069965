"""`buyer-guide`: what to buy, which years and trims, prices, known problems, what to ask."""

from __future__ import annotations

from typing import Any

ID = "buyer-guide"
TITLE = "Buyer guide"
INSTRUCTIONS = (
    "Write a buyer's guide for the product the question is about, from what the videos say: "
    "the product, a short summary, the models and trims (with years and a verdict), model "
    "years to seek, to consider and to avoid, prices, known problems (what they affect and "
    "how serious they are), what to avoid, mileage or usage advice, and questions to ask the "
    "seller. Every item carries the transcript evidence for it; leave out what the videos do "
    "not say."
)


def _items(fields: dict[str, Any], required: list[str], sources: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "array",
        "maxItems": 8,
        "items": {
            "type": "object",
            "properties": {**fields, "sources": sources},
            "required": [*required, "sources"],
        },
    }


def data_schema(sources: dict[str, Any]) -> dict[str, Any]:
    text = {"type": "string", "maxLength": 300}
    return {
        "type": "object",
        "properties": {
            "product": {"type": "string", "maxLength": 120},
            "summary": {"type": "string", "maxLength": 900},
            "models": _items({"name": text, "years": text, "verdict": text}, ["name"], sources),
            "years_to_seek": _items({"years": text, "why": text}, ["years"], sources),
            "years_to_consider": _items({"years": text, "why": text}, ["years"], sources),
            "years_to_avoid": _items({"years": text, "why": text}, ["years"], sources),
            "prices": _items({"what": text, "price": text}, ["what", "price"], sources),
            "known_problems": _items(
                {
                    "problem": text,
                    "affects": text,
                    "severity": {"type": "string", "enum": ["minor", "moderate", "serious"]},
                },
                ["problem"],
                sources,
            ),
            "avoid": _items({"what": text}, ["what"], sources),
            "mileage_advice": _items({"text": text}, ["text"], sources),
            "seller_questions": _items({"question": text}, ["question"], sources),
        },
        "required": ["product", "summary"],
    }


def headline(data: dict[str, Any]) -> str:
    return str(data.get("summary") or data.get("product") or "")
