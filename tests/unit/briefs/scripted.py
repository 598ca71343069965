"""A scripted model that writes briefs from what its prompt really holds (tests only).

It reads the fenced sources (or numbered claims) out of the prompt and answers each step's
JSON Schema deterministically: real quotes for lines that mention a keyword, plus one
invented quote and one real quote at a wrong time per chunk, so verification has work to
do. It can be told to fail reading one video, or to wait for an event (to test cancel).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from v2c_desktop.core.models.types import (
    ChatDone,
    ChatEvent,
    ChatMessage,
    ChatOptions,
    ModelCallFailed,
    ModelInfo,
    Usage,
)
from v2c_desktop.core.timecode import clock, parse_time

LABEL = re.compile(r"^\[(\d+)\] (.+)$")
LINE = re.compile(r"^\[(\d+:\d\d(?::\d\d)?)\] (.+)$")
CLAIM = re.compile(r"^claim (\d+) \((.+); topic: (.+)\)$")


@dataclass
class BriefWriter:
    model_id: str = "scripted/brief-writer"
    context_window: int = 4096
    keyword: str = "memor"
    fail_on_title: str | None = None
    wait_for: asyncio.Event | None = None
    cite_bottom_line: bool = True
    calls: list[str] = field(default_factory=list)
    #: every prompt it answered: (step, the last message's text)
    prompts: list[tuple[str, str]] = field(default_factory=list)
    #: every claim a map step answered, with its video's title: (title, claim)
    mapped: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def info(self) -> ModelInfo:
        return ModelInfo(
            id=self.model_id,
            kind="chat",
            runtime="scripted",
            context_window=self.context_window,
            capable=True,
            local=True,
        )

    async def chat(
        self, messages: Sequence[ChatMessage], options: ChatOptions = ChatOptions()
    ) -> AsyncIterator[ChatEvent]:
        yield ChatDone(self.model_id, Usage(1, 1))

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4)

    async def aclose(self) -> None:
        return None

    async def complete_json(
        self,
        messages: Sequence[ChatMessage],
        json_schema: dict[str, Any],
        options: ChatOptions = ChatOptions(),
    ) -> dict[str, Any]:
        prompt = messages[-1].content
        props = json_schema.get("properties", {})
        step = "map" if "claims" in props else "data" if "data" in props else "answer"
        self.calls.append(step)
        self.prompts.append((step, prompt))
        if self.wait_for is not None:
            await self.wait_for.wait()
        sources = _sources(prompt)
        if self.fail_on_title and any(self.fail_on_title in t for t, _ in sources.values()):
            raise ModelCallFailed(self.model_id, "server-error", "scripted failure")
        if step == "map":
            claims = self._claims(sources)
            titles = {n: title for n, (title, _) in sources.items()}
            self.mapped += [(titles[c["source"]], c) for c in claims]
            return {"claims": claims}
        inline = _is_inline(json_schema)
        claims = _claims_in(prompt)
        if step == "data":
            return self._data(sources, claims, inline)
        if "points" in props:
            return self._points(sources, claims, inline)
        if "options" in props:
            return self._comparison(sources, claims, inline)
        return self._template(json_schema, sources, claims, inline)

    # -- steps ---------------------------------------------------------------------------
    def _claims(
        self, sources: dict[int, tuple[str, list[tuple[str, str]]]]
    ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for n, (_title, lines) in sources.items():
            hits = [(t, text) for t, text in lines if self.keyword in text.lower()][:3]
            stances = ["for", "against", "neutral"]
            for (time, text), stance in zip(hits, stances, strict=False):
                out.append(
                    {
                        "claim": f"The video says: {text[:60]}",
                        "quote": _words(text, 8),
                        "source": n,
                        "time": time,
                        "topic": "Memory",
                        "stance": stance,
                    }
                )
            out.append(
                {
                    "claim": "An invented claim",
                    "quote": "bananas orbit the moon every single tuesday morning",
                    "source": n,
                    "time": "0:10",
                    "topic": "Nonsense",
                }
            )
            if len(lines) > 10:  # a chunk long enough for "elsewhere" to be far away
                time, text = lines[0]
                later = clock(parse_time(lines[-1][0]))
                out.append(
                    {
                        "claim": "Said at another time",
                        "quote": _words(text, 10),
                        "source": n,
                        "time": later,
                        "topic": "Memory",
                    }
                )
        return out

    def _evidence(self, sources, claims, inline, index):  # type: ignore[no-untyped-def]
        if not inline:
            return [claims[index][0]] if index < len(claims) else []
        flat = [
            (n, t, text)
            for n, (_, lines) in sources.items()
            for t, text in lines
            if self.keyword in text.lower()
        ]
        if index >= len(flat):
            return []
        n, time, text = flat[index]
        return [{"source": n, "time": time, "quote": _words(text, 8)}]

    def _points(self, sources, claims, inline):  # type: ignore[no-untyped-def]
        by_video: dict[str, list[int]] = {}
        for n, title in claims:
            by_video.setdefault(title, []).append(n)
        points: list[dict[str, Any]] = []
        if inline:
            points.append(
                {
                    "topic": "Memory",
                    "text": "Both videos describe memory.",
                    "support": self._evidence(sources, claims, True, 0)
                    + self._evidence(sources, claims, True, 4),
                }
            )
            points.append(
                {
                    "topic": "Made up",
                    "text": "A point with a made-up quote.",
                    "support": [
                        {
                            "source": 1,
                            "time": "0:05",
                            "quote": "nothing like this was ever said here",
                        }
                    ],
                }
            )
            points.append(
                {
                    "topic": "Forgetting",
                    "text": "Nothing is ever forgotten.",
                    "support": [{"source": 1, "time": "0:05", "quote": "we never forget a thing"}],
                    "oppose": self._evidence(sources, claims, True, 2),
                    "counter": "Forgetting is part of how memory works.",
                }
            )
        else:
            firsts = [ids[0] for ids in by_video.values()]
            points.append(
                {
                    "topic": "memories",
                    "text": "Both videos describe how memory works.",
                    "support": firsts,
                }
            )
            videos = list(by_video.values())
            if videos and len(videos[0]) > 3:  # two claims, one video: never a consensus
                points.append(
                    {
                        "topic": "Memory",
                        "text": "One video says it twice.",
                        "support": [videos[0][2], videos[0][3]],
                    }
                )
            if len(videos) >= 2 and len(videos[1]) > 2:  # its support fails, not its other side
                points.append(
                    {
                        "topic": "Forgetting",
                        "text": "Nothing is ever forgotten.",
                        "support": [999],
                        "oppose": [videos[1][2]],
                        "counter": "Forgetting is part of how memory works.",
                    }
                )
            if len(videos) >= 2 and len(videos[0]) > 1 and len(videos[1]) > 1:
                points.append(
                    {
                        "topic": "Memory",
                        "text": "Memories are reliable.",
                        "support": [videos[0][1]],
                        "oppose": [videos[1][1]],
                        "counter": "Memories are rebuilt each time.",
                    }
                )
        answer: dict[str, Any] = {
            "title": "Memory, briefly",
            "bottom_line": "Memory is built and rebuilt.",
            "points": points,
        }
        if self.cite_bottom_line:
            answer["bottom_line_support"] = (
                self._evidence(sources, claims, True, 0)
                if inline
                else [ids[0] for ids in by_video.values()]
            )
        return answer

    def _comparison(self, sources, claims, inline):  # type: ignore[no-untyped-def]
        good = self._evidence(sources, claims, inline, 0)
        bad = (
            [{"source": 1, "time": "0:05", "quote": "a cell the videos never fill"}]
            if inline
            else [999]
        )
        return {
            "criteria": ["how memories form"],
            "options": [
                {
                    "name": "Video one",
                    "cells": [
                        {"criterion": "how memories form", "value": "encoding", "sources": good},
                        {"criterion": "how memories form", "value": "made up", "sources": bad},
                    ],
                },
            ],
            "verdict": {"text": "They agree.", "sources": good},
        }

    def _template(self, schema, sources, claims, inline):  # type: ignore[no-untyped-def]
        """Any template's answer, filled from its own schema: every list of citable items
        gets two, the first with real evidence, the second with evidence that fails."""
        counter = iter(range(1000))

        def fill(node: dict[str, Any], name: str) -> Any:
            kind = node.get("type")
            if "enum" in node:
                return node["enum"][-1]
            if kind == "object":
                props = node.get("properties", {})
                out = {key: fill(sub, key) for key, sub in props.items() if key != "sources"}
                if "sources" in props:
                    out["sources"] = self._evidence(sources, claims, inline, next(counter))
                return out
            if kind == "array":
                item = node.get("items", {})
                if item.get("type") == "object" and "sources" in item.get("properties", {}):
                    good = fill(item, name)
                    bad = fill(item, name)
                    bad["sources"] = (
                        [{"source": 1, "time": "0:05", "quote": "words no video ever says here"}]
                        if inline
                        else [999]
                    )
                    return [good, bad]
                return [fill(item, name), fill(item, name)]
            if kind == "integer":
                return 3
            return f"{name} {next(counter)}"

        return fill(schema, "answer")

    def _data(self, sources, claims, inline):  # type: ignore[no-untyped-def]
        return {
            "data": {"topic": "memory", "facts": ["encoding matters", "unsupported fact"]},
            "citations": [
                {"pointer": "/facts/0", "sources": self._evidence(sources, claims, inline, 0)}
            ],
        }


def _sources(prompt: str) -> dict[int, tuple[str, list[tuple[str, str]]]]:
    out: dict[int, tuple[str, list[tuple[str, str]]]] = {}
    current: int | None = None
    for raw in prompt.splitlines():
        line = raw.strip()
        label = LABEL.match(line)
        if label and not LINE.match(line):
            current = int(label.group(1))
            out[current] = (label.group(2), [])
            continue
        found = LINE.match(line)
        if found and current is not None:
            out[current][1].append((found.group(1), found.group(2)))
    return out


def _claims_in(prompt: str) -> list[tuple[int, str]]:
    return [
        (int(m.group(1)), m.group(2))
        for m in (CLAIM.match(line.strip()) for line in prompt.splitlines())
        if m
    ]


def _is_inline(schema: Any) -> bool:
    """Whether evidence is quoted inline (objects) or named by claim number (integers)."""
    text = repr(schema)
    return "'quote'" in text


def _words(text: str, count: int) -> str:
    return " ".join(text.split()[:count])
