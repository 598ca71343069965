"""What the status bar and agents show about one library."""

from __future__ import annotations

from dataclasses import dataclass

from ..wire import wire


@wire
@dataclass(frozen=True, slots=True)
class LibraryStatus:
    """What the status bar and agents show about a library."""

    path: str
    videos: int
    hours: float
    collections: int
    indexed_videos: int
    vector_videos: int
    embedding_model: str | None
