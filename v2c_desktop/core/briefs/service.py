"""The brief service: scope -> sources -> (model pipeline | extractive) -> brief, saved.

A build is a long job: it streams progress (`scope`, `map 3/12`, `verify`, `reduce`, `render`)
from its first moment, can be cancelled at any point (nothing is saved until the end), and
ends with a brief, complete or honestly partial, never an endless "working". Saved briefs
keep their question, template, scope, model, timings and result; a re-run rebuilds one in
place, reusing the cached maps of videos whose transcripts did not change.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from typing import Any

from ..errors import V2CError, bad_request
from ..library import Library
from ..models.registry import ModelRegistry
from ..models.types import ChatModel, EmbeddingModel
from ..plain_text import counted
from ..search.engine import SearchEngine
from ..search.request import SearchRequest
from ..store import LibraryStore
from ..wire_codec import decode, encode
from .assemble import assemble_brief
from .events import (
    Brief,
    BriefDone,
    BriefEvent,
    BriefRequest,
    BriefStep,
    BriefSummary,
    BriefTopic,
    StageTiming,
)
from .evidence import Evidence
from .extractive import extractive_topics
from .generate import Generated, MapKey, Spec, generate
from .render import markdown
from .schema_subset import check_schema
from .sources import BriefSource, number_sources
from .sponsors import without_sponsors
from .templates import template

SEARCH_VIDEOS = 10
MAX_VIDEOS = 60


class BriefService:
    def __init__(
        self,
        store: LibraryStore,
        library: Library,
        engine: SearchEngine,
        registry: ModelRegistry | None,
        embedder: EmbeddingModel | None,
    ) -> None:
        self.store, self.library, self.engine = store, library, engine
        self.registry, self.embedder = registry, embedder

    # -- building ---------------------------------------------------------------------------
    async def prepare(self, request: BriefRequest) -> tuple[list[Any], list[ChatModel], str]:
        """What a build of `request` would start from: its videos, its model chain and why
        it would be extractive (the same errors a build raises first); for estimates."""
        if request.rerun:
            request = await self._rerun_request(request)
        spec = _spec(request)  # an unsupported schema keyword fails here
        chain, why = self._chain(request)
        _needs_a_model(spec, chain, why)  # and a schema with no model to fill it
        records = await self._scope(request)
        if request.skip_sponsors:
            records, _ = await without_sponsors(self.store, records)
        return records, chain, why

    async def build(self, request: BriefRequest) -> AsyncIterator[BriefEvent]:
        """Progress steps, then the brief (saved); a `V2CError` for a request that cannot run."""
        started = time.perf_counter()
        yield BriefStep("scope", 0, None, "reading the videos")
        if request.rerun:
            request = await self._rerun_request(request)
        spec = _spec(request)
        if not request.question.strip():
            raise bad_request("a brief needs a question", "say what the brief should answer")
        chain, why = self._chain(request)
        _needs_a_model(spec, chain, why)
        records = await self._scope(request)
        left_out: list[str] = []
        if request.skip_sponsors:
            records, left_out = await without_sponsors(self.store, records)
        # indexing every transcript and finding copies is pure work, long on a big scope
        sources = await asyncio.to_thread(number_sources, records)
        videos = len(sources)
        yield BriefStep(
            "scope", len(records), len(records), f"{videos} distinct videos", videos=videos
        )
        timings = [StageTiming("retrieve", _ms(started))]
        generated = Generated()
        if not chain:
            yield BriefStep("extract", 0, videos, "finding the best passages", videos=videos)
            steps = self._extractive(request, sources, spec, why)
        else:
            steps = generate(
                request.question,
                sources,
                spec,
                chain,
                cached=self._cached_map,
                remember=self._remember_map,
            )
        async for event in steps:
            if isinstance(event, Generated):
                generated = event
            else:
                yield event
        if not chain:
            yield BriefStep("extract", videos, videos, "passages grouped", videos=videos)
        yield BriefStep("render", 0, 1, "writing the brief")
        generated.limitations.extend(left_out)
        render_started = time.perf_counter()
        brief = assemble_brief(request, spec.name, sources, records, chain, generated, timings)
        markdown(brief, request.max_words)  # rendered once here, so its cost is measured
        brief.timings.append(StageTiming("render", _ms(render_started)))
        await self.store.run(
            self.store.save_brief,
            brief.id,
            brief.title,
            brief.question,
            brief.template,
            brief.scope,
            brief.model,
            brief.status,
            encode(brief),
        )
        brief = await self.get(brief.id)  # as saved: with its creation time, as shown later
        yield BriefStep("render", 1, 1, "saved")
        yield BriefDone(brief)

    def _chain(self, request: BriefRequest) -> tuple[list[ChatModel], str]:
        """The models to try (empty: extractive), and why none when so."""
        if request.extractive:
            return [], "you asked for an extractive brief"
        if self.registry is None:
            return [], "this library was opened without models"
        try:
            return self.registry.writing_chain(request.model, request.strict)
        except V2CError as error:
            if error.code != "not-found":
                raise
            known = ", ".join(m.info.id for m in self.registry.chat_models()) or "none"
            raise _reworded(error, f"configured models: {known}; {{list-models}}") from None

    async def _scope(self, request: BriefRequest) -> list[Any]:
        ids = list(request.video_ids)
        if request.collection:
            with _not_found_hint("{list-collections}"):
                ids.extend((await self.library.get_collection(request.collection)).video_ids)
        if request.search:
            found = await self.engine.search(SearchRequest(request.search, limit=50))
            ids.extend(list(dict.fromkeys(h.video_id for h in found.hits))[:SEARCH_VIDEOS])
        if not ids:
            raise bad_request("no videos to brief", "{brief-scope}")
        with _not_found_hint("{list-videos}"):
            resolved = list(dict.fromkeys([await self.library.resolve(v) for v in ids]))
        if len(resolved) > MAX_VIDEOS:
            raise bad_request(
                f"{len(resolved)} videos is more than one brief reads ({MAX_VIDEOS})",
                "narrow the collection or the search",
            )
        with _not_found_hint("{list-videos}"):
            return [await self.library.get_video(v) for v in resolved]

    async def _extractive(
        self, request: BriefRequest, sources: list[BriefSource], spec: Spec, why: str
    ) -> AsyncGenerator[BriefStep | Generated, None]:
        """Its steps (a video at a time), then what it made, last."""
        started = time.perf_counter()
        evidence = Evidence(sources)
        embed = self.embedder.embed if self.embedder is not None else None
        topics: list[BriefTopic] = []
        async for event in extractive_topics(
            request.question, sources, evidence, self.engine.search, embed
        ):
            if isinstance(event, BriefStep):
                yield event
            else:
                topics = event
        result = Generated(evidence=evidence, topics=topics, pass_kind="extractive")
        shared = sum(
            1 for t in topics for p in t.points if len({c.video_id for c in p.support}) > 1
        )
        made = "point is" if shared == 1 else "points are"
        result.bottom_line = (
            f"No chat model wrote this ({why}). These are the passages that best match the "
            f"question in {counted(len(sources), 'video')}, grouped into "
            f"{counted(len(topics), 'topic')}; {shared} {made} made in two or more videos."
        )
        if spec.name != "brief":
            result.notes.append(
                f"the {spec.name} template needs a chat model; this is an extractive brief"
            )
        result.timings.append(StageTiming("extract", _ms(started)))
        yield result

    # -- the map cache ----------------------------------------------------------------------
    async def _cached_map(self, key: MapKey) -> list[dict[str, Any]] | None:
        return await self.store.run(self.store.brief_map, key)

    async def _remember_map(self, key: MapKey, claims: list[dict[str, Any]]) -> None:
        await self.store.run(self.store.put_brief_map, key, claims)

    # -- saved briefs -----------------------------------------------------------------------
    async def list(self) -> list[BriefSummary]:
        rows = await self.store.run(self.store.list_briefs)
        return [
            BriefSummary(
                str(r[0]),
                str(r[1]),
                str(r[2]),
                str(r[3]),
                r[4],
                r[5],
                str(r[6]),
                str(r[7]),
                json.loads(r[8] or "{}"),
            )
            for r in rows
        ]

    async def get(self, brief_id: str) -> Brief:
        with _not_found_hint("{list-briefs}"):
            raw, title, created = await self.store.run(self.store.get_brief, brief_id)
        brief = decode(raw, Brief)
        if not isinstance(brief, Brief):
            raise V2CError("internal", f"the saved brief {brief_id} cannot be read")
        # the columns win: a rename changes the title column, not the saved result
        return dataclasses.replace(brief, title=title, created_at=brief.created_at or created)

    async def rename(self, brief_id: str, title: str) -> None:
        with _not_found_hint("{list-briefs}"):
            await self.store.run(self.store.rename_brief, brief_id, title)

    async def delete(self, brief_id: str) -> None:
        with _not_found_hint("{list-briefs}"):
            await self.store.run(self.store.delete_brief, brief_id)

    async def _rerun_request(self, request: BriefRequest) -> BriefRequest:
        """The saved brief's own request (its scope re-read: a collection may have grown)."""
        saved = await self.get(request.rerun or "")
        scope = saved.scope
        return BriefRequest(
            question=saved.question,
            video_ids=tuple(scope.get("video_ids") or ()),
            collection=scope.get("collection"),
            search=scope.get("search"),
            template=scope.get("template") or saved.template,
            schema=scope.get("schema"),
            model=request.model or scope.get("model"),
            strict=bool(scope.get("strict")),
            extractive=request.extractive or bool(scope.get("extractive")),
            max_words=int(scope.get("max_words") or request.max_words),
            rerun=saved.id,
            title=saved.title,
            skip_sponsors=request.skip_sponsors or bool(scope.get("skip_sponsors")),
        )


@contextlib.contextmanager
def _not_found_hint(hint: str) -> Iterator[None]:
    """A library's or a store's `not-found` with `hint` instead of its own: theirs names a
    command of the CLI, and a brief's errors reach the app's pane and MCP agents too, so
    its hints name what to do through placeholders each face words (`errors.render_hint`)."""
    try:
        yield
    except V2CError as error:
        if error.code != "not-found":
            raise
        raise _reworded(error, hint) from None


def _reworded(error: V2CError, hint: str) -> V2CError:
    return V2CError(error.code, error.message, hint, dict(error.details))


def _needs_a_model(spec: Spec, chain: list[ChatModel], why: str) -> None:
    """Refuse a schema no model can fill, before anything is read: the extractive brief
    has no answer to give in the user's own shape."""
    if spec.template is None and not chain:
        raise bad_request(
            "filling your own JSON Schema needs a chat model",
            f"{why}; {{get-model}}, or start Ollama or LM Studio",
        )


def _spec(request: BriefRequest) -> Spec:
    if request.schema is not None:
        check_schema(request.schema)
        return Spec(None, request.schema)
    return Spec(template(request.template))


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 1)
