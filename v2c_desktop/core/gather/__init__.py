"""Work over several videos at once: reading inputs, gathering videos, filling collections.

Every face that takes "these videos" (the MCP tools, later the CLI, the app and briefs)
follows the same rules here: what an input may be (`refs`), that one failing input never
fails the batch but is reported (`videos`), how a collection is filled from mixed inputs
(`collection`) and what a context pack holds (`pack`; its text is `core.render.pack`).

These run in the face's process over a `CoreAPI` (the owner's or a client's), so they work
the same whether this process owns the library or not.
"""

from __future__ import annotations

from .collection import AddedVideo, FillSummary, SkippedInput, fill_collection
from .pack import PackContents, gather_pack
from .refs import InputResolver, absolute_input, import_source, importable
from .videos import BatchProgress, Gathered, InputFailure, Loaded, gather_videos, load_records

__all__ = [
    "AddedVideo",
    "BatchProgress",
    "FillSummary",
    "Gathered",
    "InputFailure",
    "InputResolver",
    "Loaded",
    "PackContents",
    "SkippedInput",
    "absolute_input",
    "fill_collection",
    "gather_pack",
    "gather_videos",
    "import_source",
    "importable",
    "load_records",
]
