"""Input fields shared by the tools, each with the description agents read in `tools/list`.

One definition per input keeps `url`, `urls` and `collection` meaning the same thing in every
tool, as the spec requires. The format list is read from the core's `FORMATS` registry when
the server starts, never written out by hand.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from v2c_desktop.core.render import FORMATS

VIDEO_FORMS = (
    "a URL (YouTube or any site yt-dlp reads), a YouTube id, a library id such as "
    "youtube:aircAruvnKk, a local subtitle or media file path, or an exact title"
)

Url = Annotated[
    str,
    Field(
        description=f"The video: {VIDEO_FORMS}. A URL or file not in the library yet is "
        "imported first (one video: a few seconds)."
    ),
]
UrlList = Annotated[
    list[str] | None,
    Field(
        description=f"Videos, each {VIDEO_FORMS}; playlists and folders count as their videos. "
        "Inputs not in the library yet are imported first."
    ),
]
CollectionRef = Annotated[
    str | None,
    Field(description="A collection id (or exact name), as list_collections shows it."),
]
RequiredCollection = Annotated[
    str,
    Field(description="A collection id (or exact name), as list_collections shows it."),
]
Format = Annotated[
    str,
    Field(
        description="Output format, one of: "
        + ", ".join(FORMATS)
        + " (list_formats describes them). text starts with the source header."
    ),
]
Timestamps = Annotated[
    bool,
    Field(
        description="true: one line per caption with its [m:ss] time (for citing); false: "
        "flowing paragraphs (about 10% fewer tokens, nothing to cite by time)."
    ),
]
Language = Annotated[
    str | None,
    Field(
        description="Preferred caption language (en, de, pt-BR, ...) when the video has to be "
        "imported; a video already in the library keeps the transcript it has."
    ),
]
MaxTokens = Annotated[
    int | None,
    Field(
        ge=1,
        description="Page the result to about this many tokens (speech is ~12k tokens per "
        "hour). Pages are cut on caption boundaries; each ends with next_cursor.",
    ),
]
Cursor = Annotated[
    str | None,
    Field(
        description="next_cursor of the previous page (like seg:120); pass the same other "
        "arguments again. Leave out for the first page."
    ),
]


def languages(language: str | None) -> tuple[str, ...]:
    return (language.strip(),) if language and language.strip() else ()
