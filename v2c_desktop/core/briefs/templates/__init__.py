"""The built-in templates: what each extracts, its instructions, and its JSON Schema.

A template's schema is written once with a placeholder for "the evidence of this item":
in a single pass the model quotes the transcript there (`{source, time, quote}`), after a
map step it names verified claims by number. `data_schema(sources)` fills it in.
Citable items are the objects holding a `sources` list; everything else is their frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import bad_request
from . import brief, buyer_guide, comparison, summary, tutorial_steps

Schema = dict[str, Any]


@dataclass(frozen=True)
class Template:
    id: str
    title: str
    instructions: str
    data_schema: Callable[[Schema], Schema]
    headline: Callable[[dict[str, Any]], str]


TEMPLATES: dict[str, Template] = {
    module.ID: Template(
        module.ID, module.TITLE, module.INSTRUCTIONS, module.data_schema, module.headline
    )
    for module in (brief, summary, buyer_guide, tutorial_steps, comparison)
}


def template(name: str) -> Template:
    found = TEMPLATES.get(name)
    if found is None:
        raise bad_request(
            f"unknown template {name!r}",
            f"use one of: {', '.join(TEMPLATES)}, or your own JSON Schema",
        )
    return found
