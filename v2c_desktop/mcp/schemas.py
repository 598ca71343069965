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
