"""The key-moments service: a video -> (cached | model chain | extractive) -> verified moments.

The model is chosen as briefs choose theirs (`ModelRegistry.writing_chain`: local llama.cpp
first, then the configured OpenAI-compatible servers; a named model is used as asked). Its
answer is one JSON object under the schema (a grammar for llama.cpp, `prompt.py`), and
nothing of it is shown before `verify.py` has checked every time against the transcript.
Without a capable model, or when the model's answer fails or none of its moments checks
out, the result is extractive (`extractive.py`) and says so and why. Only a model's
verified result is cached (extractive moments cost milliseconds): by video, transcript,
model, prompt version and count (`store/moments.py`).

A model call is long work: it reports `moments` progress (read, ask, check) and stops when
the awaiting task is cancelled; nothing is saved then.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..domain.videos import VideoRecord
from ..errors import V2CError, bad_request
from ..ids import timestamp_url
from ..library import Library
from ..models.chain import ChainRun, complete_json
from ..models.registry import ModelRegistry
from ..models.types import ChatModel
from ..progress import Progress, ProgressCallback, ignore_progress
from ..store import LibraryStore
from ..wire_codec import decode, encode
from .events import Basis, KeyMoment, KeyMoments
from .extractive import ChunkVectors, extractive_moments
from .prompt import (
    PROMPT_VERSION,
    moments_messages,
    moments_options,
    moments_schema,
    sampled_lines,
    shown_times,
    source_budget,
)
from .verify import Draft, TitleOf, verify_moments

DEFAULT_COUNT = 8
MAX_COUNT = 20
STAGE = "moments"
STEPS = 3


class MomentService:
    def __init__(
        self,
        store: LibraryStore,
        library: Library,
        registry: ModelRegistry | None,
        embed_model: str | None,
    ) -> None:
        self.store, self.library, self.registry = store, library, registry
        self.embed_model = embed_model

    async def key_moments(
        self,
        ref: str,
        count: int = DEFAULT_COUNT,
        *,
        model: str | None = None,
        extractive: bool = False,
        progress: ProgressCallback = ignore_progress,
    ) -> KeyMoments:
        """Up to `count` key moments of the video `ref` names (see the module docstring)."""
        if not 1 <= count <= MAX_COUNT:
            raise bad_request(
                f"count must be 1 to {MAX_COUNT}, not {count}", f"ask for {DEFAULT_COUNT}"
            )
        record = await self.library.get_video(ref)
        if not any(s.text.strip() for s in record.transcript.segments):
            return self._result(record, count, "even", [], note="the video has no transcript text")
        chain, why = self._chain(model, extractive)
        if not chain:
            return await self._extractive(record, count, f"no chat model chose these ({why})")
        hash_ = await self.store.run(self.store.transcript_hash, record.video.id) or ""
        first = chain[0].info.id
        cached = await self._cached(record.video.id, hash_, first, count)
        if cached is not None:
            progress(Progress(STAGE, STEPS, STEPS, f"key moments by {first}, saved earlier"))
            return cached
        found, failure = await self._ask(record, count, chain, progress)
        if found is not None:
            assert found.model is not None
            await self.store.run(
                self.store.put_key_moments,
                (record.video.id, hash_, found.model, PROMPT_VERSION, count),
                encode(found),
            )
            return found
        progress(Progress(STAGE, STEPS, STEPS, "the transcript's own moments instead"))
        return await self._extractive(record, count, failure)

    def _chain(self, model: str | None, extractive: bool) -> tuple[list[ChatModel], str]:
        if extractive:
            return [], "you asked for extractive moments"
        if self.registry is None:
            return [], "this library was opened without models"
        return self.registry.writing_chain(model, strict=model is not None)

    async def _cached(self, video_id: str, hash_: str, model: str, count: int) -> KeyMoments | None:
        """The moments `model` chose for this transcript before (looked up for the chain's
        first model: one that served only because the first failed is asked again)."""
        raw = await self.store.run(
            self.store.key_moments, (video_id, hash_, model, PROMPT_VERSION, count)
        )
        found = decode(raw, KeyMoments) if raw is not None else None
        return dataclasses.replace(found, cached=True) if isinstance(found, KeyMoments) else None

    async def _ask(
        self,
        record: VideoRecord,
        count: int,
        chain: Sequence[ChatModel],
        progress: ProgressCallback,
    ) -> tuple[KeyMoments | None, str]:
        """The model's verified moments, or None and why there are none."""
        segments = record.transcript.segments
        first = chain[0]
        progress(Progress(STAGE, 0, STEPS, "reading the transcript"))
        lines, sampled = sampled_lines(segments, source_budget(first, count))
        grounded = first.info.runtime == "llamacpp"  # the schema is its grammar
        schema = moments_schema(count, shown_times(lines) if grounded else None)
        title = record.video.title or record.video.id
        messages = moments_messages(title, lines, count, sampled)
        progress(Progress(STAGE, 1, STEPS, f"asking {first.info.label or first.info.id}"))
        run = ChainRun(stage=STAGE)
        options = moments_options(first, count)
        try:
            answer = await complete_json(chain, messages, schema, options, run)
        except V2CError as error:
            return None, f"the model's answer could not be used ({error.message})"
        served = run.served_by or first.info.id
        progress(Progress(STAGE, 2, STEPS, "checking every time against the transcript"))
        verified = verify_moments(answer, segments, count, TitleOf(segments))
        if not verified.moments:
            return None, (
                f"none of the {verified.offered} moments {served} gave checked out against "
                "the transcript"
            )
        progress(Progress(STAGE, STEPS, STEPS, f"{len(verified.moments)} key moments"))
        notes = [verified.note()]
        if sampled:
            notes.append("the transcript was too long for the model: it read parts of all of it")
        return (
            self._result(
                record,
                count,
                "model",
                verified.moments,
                model=served,
                dropped=verified.dropped_total,
                note="; ".join(n for n in notes if n),
            ),
            "",
        )

    async def _extractive(self, record: VideoRecord, count: int, why: str) -> KeyMoments:
        vectors = await self._vectors(record) if len(record.chapters) < 2 else None
        basis, drafts = extractive_moments(record, count, vectors)
        where = {
            "chapters": "they are the video's chapters",
            "topic-shifts": "they are where its subject changes most",
            "even": "they are evenly spaced (the video has no chapters, and its search "
            "index has no vectors yet)",
        }[basis]
        return self._result(record, count, basis, drafts, note=f"{why}; {where}")

    async def _vectors(self, record: VideoRecord) -> ChunkVectors | None:
        if self.embed_model is None:
            return None
        found = await self.store.run(self.store.video_vectors, record.video.id, self.embed_model)
        return ChunkVectors(*found) if found is not None else None

    def _result(
        self,
        record: VideoRecord,
        count: int,
        basis: Basis,
        drafts: Sequence[Draft],
        *,
        model: str | None = None,
        dropped: int = 0,
        note: str = "",
    ) -> KeyMoments:
        video = record.video
        return KeyMoments(
            video_id=video.id,
            title=video.title or video.id,
            method="model" if basis == "model" else "extractive",
            basis=basis,
            moments=[
                KeyMoment(d.start, d.title, d.why, timestamp_url(video, d.start)) for d in drafts
            ],
            model=model,
            requested=count,
            dropped=dropped,
            note=note,
        )
