"""The digest core on real transcripts: the plan's pieces, one pass or map and reduce on a lent
model, every quote verified, refusals and bad answers, and checking an agent's own quotes."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
from collections.abc import Sequence

import pytest

from tests.support.digest_writer import INVENTED, DigestWriter, fenced
from tests.unit.render.records import homunculus, ned
from v2c_desktop.core.briefs.digest import (
    ChatMessage,
    Digest,
    ModelCallFailed,
    Sampled,
    check_quotes,
    plan_digest,
    write_digest,
)
from v2c_desktop.core.briefs.events import BriefStep
from v2c_desktop.core.domain.videos import Video, VideoRecord
from v2c_desktop.core.render.tokens import estimate_tokens
from v2c_desktop.core.timecode import clock, parse_time

pytestmark = pytest.mark.corpus


class Lender:
    """A `Sampler` over the scripted writer; `refuse` says no, `garbled` answers prose first."""

    def __init__(self, *, refuse: bool = False, garbled: int = 0) -> None:
        self.writer = DigestWriter()
        self.refuse = refuse
        self.garbled = garbled
        self.max_tokens: list[int] = []
        self.seen: list[list[ChatMessage]] = []

    async def __call__(self, messages: Sequence[ChatMessage], max_tokens: int) -> Sampled:
        self.max_tokens.append(max_tokens)
        self.seen.append(list(messages))
        if self.refuse:
            raise ModelCallFailed("mcp-sampling", "declined", "User rejected the request")
        if self.garbled:
            self.garbled -= 1
            return Sampled("I would rather write prose.", "lender-model")
        system = "\n".join(m.content for m in messages if m.role == "system")
        user = "\n".join(m.content for m in messages if m.role == "user")
        return Sampled(json.dumps(self.writer.answer(system, user)), "lender-model")


def _digest(plan_records: list[VideoRecord], lender: Lender, piece_tokens: int) -> Digest:
    async def go() -> Digest:
        steps: list[BriefStep] = []
        plan = plan_digest(plan_records, piece_tokens)
        async for event in write_digest("What is the homunculus?", plan, lender):
            if isinstance(event, BriefStep):
                steps.append(event)
            else:
                assert steps, "no progress before the digest"
                return event
        raise AssertionError("no digest")

    return asyncio.run(go())


def test_the_plan_cuts_each_video_into_contiguous_pieces_within_the_budget() -> None:
    long, short = ned(), homunculus()
    plan = plan_digest([long, short], 1500)
    assert [v.source.video_id for v in plan.videos] == [long.video.id, short.video.id]
    for planned in plan.videos:
        pieces = planned.pieces
        assert all(p.tokens <= 1500 for p in pieces)
        assert all(estimate_tokens(p.text) <= p.tokens for p in pieces)
        for before, after in itertools.pairwise(pieces):
            assert before.until == after.start and before.end <= after.start + 10
        assert pieces[-1].until >= pieces[-1].end
        lines = "\n".join(p.text for p in pieces).splitlines()
        assert lines == [line.render() for line in planned.source.lines]  # nothing lost
    assert len(plan.videos[0].pieces) > 5 and not plan.single
    assert plan.requests == plan.pieces + 1
    whole = plan_digest([short], 5000)
    assert whole.single and whole.requests == 1 and len(whole.videos[0].pieces) == 1


def test_a_reupload_is_planned_once_as_a_copy() -> None:
    original = homunculus()
    copy = dataclasses.replace(original, video=dataclasses.replace(original.video, id="x:copy"))
    plan = plan_digest([original, copy], 2000)
    [planned] = plan.videos
    assert planned.source.copies == ["x:copy"]


def test_one_pass_keeps_the_real_quote_and_rejects_the_invented() -> None:
    lender = Lender()
    digest = _digest([homunculus()], lender, 5000)
    assert (digest.requests, digest.answered, digest.models) == (1, 1, ["lender-model"])
    [(system, user)] = lender.writer.requests
    fenced(system, user)
    assert '"bottom_line"' in system  # the schema is stated in the prompt
    assert all(n >= 2000 for n in lender.max_tokens)  # a strong model's answer is long
    brief = digest.brief
    assert brief.pass_kind == "single" and brief.model == "lender-model"
    [(_, time, quote)] = lender.writer.real
    [point] = brief.points
    [cited] = point.support
    assert cited.quote == quote and abs(cited.start - parse_time(time)) <= 15
    assert "fxZWtc0mYpQ" in cited.url and f"t={int(cited.start)}s" in cited.url
    [rejected] = brief.unverified
    assert (rejected.quote, rejected.reason) == (INVENTED, "quote-not-found")


def test_pieces_are_mapped_one_request_each_then_reduced() -> None:
    lender = Lender()
    record = homunculus()
    plan = plan_digest([record], 600)
    digest = _digest([record], lender, 600)
    assert digest.brief.pass_kind == "map-reduce"
    assert digest.requests == plan.pieces + 1 == len(lender.writer.requests)
    boundaries = {fenced(s, u) for s, u in lender.writer.requests}
    assert len(boundaries) == plan.pieces + 1  # a new random boundary every time
    assert {c.quote for p in digest.brief.points for c in p.support} == {
        q for _, _, q in lender.writer.real
    }
    assert len(digest.brief.unverified) == plan.pieces
    assert digest.brief.status == "complete"


def test_a_refusal_answers_nothing_and_says_why() -> None:
    digest = _digest([homunculus()], Lender(refuse=True), 5000)
    assert digest.answered == 0 and digest.requests == 1
    assert digest.failures == ["declined: User rejected the request"]
    assert digest.brief.points == [] and digest.brief.status == "partial"


def test_an_answer_that_is_not_json_is_repaired_once() -> None:
    lender = Lender(garbled=1)
    digest = _digest([homunculus()], lender, 5000)
    assert (digest.requests, digest.answered) == (2, 2)
    *_, said, fix = lender.seen[1]  # the repair: the bad answer, then what is wrong with it
    assert (said.role, said.content) == ("assistant", "I would rather write prose.")
    assert fix.role == "user" and "not valid" in fix.content
    assert len(digest.brief.points) == 1
    hopeless = _digest([homunculus()], Lender(garbled=2), 5000)
    assert hopeless.brief.points == [] and hopeless.failures[-1].startswith("bad-json")


def test_check_quotes_uses_the_briefs_verifier() -> None:
    record = homunculus()
    segment = next(s for s in record.transcript.segments if len(s.text.split()) >= 8)
    quote = " ".join(segment.text.split()[:8])
    ok, elsewhere, invented, short, unknown = check_quotes(
        {record.video.id: record},
        [
            (record.video.id, clock(segment.start), quote),
            (record.video.id, segment.start + 400, quote),
            (record.video.id, "0:10", INVENTED),
            (record.video.id, "0:10", "too short"),
            ("youtube:nothere", "0:10", quote),
        ],
    )
    assert ok.ok and ok.start is not None and abs(ok.start - segment.start) < 1
    assert elsewhere.reason == "quote-at-other-time" and elsewhere.found_at is not None
    assert invented.reason == "quote-not-found" and short.reason == "quote-too-short"
    assert unknown.reason == "unknown-video"


def test_a_video_without_captions_plans_no_pieces() -> None:
    record = homunculus()
    empty = VideoRecord(
        Video(id="x:empty", title="Silent", platform="x", native_id="empty"),
        dataclasses.replace(record.transcript, segments=[]),
    )
    plan = plan_digest([empty], 2000)
    assert plan.pieces == 0 and plan.tokens == 0
