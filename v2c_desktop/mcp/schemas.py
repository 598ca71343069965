"""Output schemas of the structured tools, published as `outputSchema`.

A client checks `structuredContent` against these, so they describe exactly what `views` and
the tools build; a field added there must be added here. Field names follow the spec's JSON
(camelCase), which is why they are not snake_case.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class FormatOut(BaseModel):
    id: str
    description: str
    mimeType: str
    extension: str
    combinesVideos: bool


class FormatsOut(BaseModel):
    formats: list[FormatOut]


class TranscriptInfoOut(BaseModel):
    origin: str
    language: str
    producer: str


class OutlineSectionOut(BaseModel):
    index: int = Field(description="1-based; pass it to get_section as `chapter`")
    title: str
    startSec: float
    endSec: float | None = None
    start: str = Field(description="m:ss")
    tokens: int
    url: str | None = Field(default=None, description="timestamp URL of the section start")


class OutlineOut(BaseModel):
    title: str
    url: str | None = None
    durationSec: float | None
    transcript: TranscriptInfoOut
    sections: Literal["chapters", "time"]
    totalTokens: int
    chapters: list[OutlineSectionOut]
    metadata: dict[str, Any]
    next: str


class ItemOut(BaseModel):
    id: str | None = Field(description="library id it will have (null if only known on import)")
    platform: str
    kind: Literal["video", "local"]
    nativeId: str | None = None
    url: str | None = None
    path: str | None = None
    title: str | None = None


class ItemsOut(BaseModel):
    input: str
    count: int
    total: int
    truncated: bool
    items: list[ItemOut]


class ModelOut(BaseModel):
    id: str
    kind: Literal["chat", "embed"]
    runtime: str
    label: str
    source: Literal["catalog", "local-file", "server", "detected"]
    installed: bool
    local: bool
    capable: bool
    stream: bool
    contextWindow: int | None = None
    dimensions: int | None = None
    sizeBytes: int | None = None
    licence: str | None = None
    recommended: bool = False
    note: str = ""
    install: str | None = None
    apiKeyEnv: str | None = Field(default=None, description="variable name only, never a value")


class ModelsOut(BaseModel):
    models: list[ModelOut]
    defaultPolicy: str
    chatChain: list[str]
    embeddingModel: str


class FailedInputOut(BaseModel):
    input: str
    code: str
    message: str
    hint: str | None = None


class DuplicateVideoOut(BaseModel):
    id: str
    title: str
    url: str | None = None
    durationSec: float


class DuplicateCopyOut(DuplicateVideoOut):
    kind: Literal["reupload", "clip"]
    overlap: float = Field(description="shared word runs over the shorter transcript's (0-1)")
    copyShare: float = Field(description="share of this copy's words found in the original")
    originalShare: float = Field(description="share of the original this copy holds")
    offsetSec: float = Field(description="a time t in the copy is t + offsetSec in the original")
    startSec: float = Field(description="where the copy's text starts in the original")
    endSec: float = Field(description="where the copy's text ends in the original")
    at: str = Field(description="[m:ss-m:ss] of the copy's text in the original")
    link: str | None = Field(default=None, description="timestamp URL into the original")


class DuplicateGroupOut(BaseModel):
    original: DuplicateVideoOut
    copies: list[DuplicateCopyOut]


class DuplicatesOut(BaseModel):
    videos: int = Field(description="videos compared")
    independentSources: int = Field(description="videos left when each group counts once")
    groups: list[DuplicateGroupOut]
    failed: list[FailedInputOut]


class ExcerptOut(BaseModel):
    rank: int = Field(description="1 = best match in this video")
    videoId: str
    title: str
    startSec: float
    endSec: float
    at: str = Field(description="[m:ss-m:ss] of the hit")
    link: str | None = Field(default=None, description="timestamp URL of the hit")
    text: str = Field(description="the matching passage")
    snippet: str = Field(description="the passage with **matched words**")
    contextStartSec: float
    contextEndSec: float
    context: str = Field(description="[m:ss] lines from contextSec before to contextSec after")


class ResearchVideoOut(BaseModel):
    id: str
    title: str
    url: str | None = None
    channel: str
    durationSec: float
    excerpts: list[ExcerptOut]


class ResearchOut(BaseModel):
    query: str
    videos: list[ResearchVideoOut]
    failed: list[FailedInputOut]
    search: str = Field(description="which search sides ran, embedding model, vector status")
