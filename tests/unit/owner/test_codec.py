"""What crosses the owner socket comes back as the same objects, and nothing else gets built."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import corpus_path
from v2c_desktop.core import wire_codec as codec
from v2c_desktop.core.domain.imports import BatchResult, ImportOutcome
from v2c_desktop.core.domain.videos import (
    Chapter,
    Collection,
    Segment,
    Transcript,
    Video,
    VideoRecord,
    VideoSummary,
)
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.progress import Progress
from v2c_desktop.core.search.request import SearchHit, SearchRequest, SearchResult
from v2c_desktop.core.wire_codec import decode, encode, error_from_wire, error_to_wire, register


def wire(value: object) -> Any:
    """Through JSON text and back, as the socket does."""
    return decode(json.loads(json.dumps(encode(value))))


def _record() -> VideoRecord:
    video = Video(
        id="youtube:abc123def45",
        title="Eigenvectors — “quoted”\nnew line",
        platform="youtube",
        native_id="abc123def45",
        channel="3Blue1Brown",
        url="https://www.youtube.com/watch?v=abc123def45",
        duration=1021.5,
        published="2016-09-15",
        description="a description",
        thumbnail_url="https://i.ytimg.com/vi/x/hq.jpg",
        source_path="",
        channel_id="UCYO",
    )
    transcript = Transcript(
        origin="creator-captions",
        language="en",
        segments=[Segment(0.0, 2.5, "hello"), Segment(2.5, 5, "world")],
        producer="youtube",
        track_name="English",
        translated_from=None,
    )
    return VideoRecord(video, transcript, [Chapter("Intro", 0.0, 60.0)], "2024-01-01", "")


def _all_domain_objects() -> list[object]:
    record = _record()
    error = V2CError("no-transcript", "no captions", "try --lang", {"video": "x"})
    collection = Collection("c1", "maths", "linear algebra", ["https://x"], ["youtube:a"], "now")
    summary = VideoSummary(
        "youtube:a", "t", "ch", "u", 12.0, "auto-captions", "en", "", None, "now", 3, 0
    )
    hit = SearchHit(
        "youtube:a", "t", "ch", 1.0, 31.5, "u", "snip", "text", None, ["keyword"], 0.5, {"bm25": 1}
    )
    outcome = ImportOutcome("/x.srt", "failed", None, "", "no captions", error)
    return [
        Segment(1.0, 2.0, "x"),
        Chapter("c", 0.0, 1.0),
        record.transcript,
        record.video,
        record,
        summary,
        collection,
        outcome,
        ImportOutcome("/y.srt", "added", "file:1234", "title"),
        BatchResult([outcome], collection),
        SearchRequest("eigen", "keyword", 5, None, ("youtube:a", "youtube:b"), None, ("stt",)),
        hit,
        SearchResult([hit], {"took_ms": 3, "modes": ["keyword"]}),
        Progress("import", 3, 10, "file.srt"),
        Progress("plan", 0),
    ]


@pytest.mark.parametrize("value", _all_domain_objects(), ids=lambda v: type(v).__name__)
def test_every_registered_type_round_trips(value: object) -> None:
    back = wire(value)
    assert type(back) is type(value)
    assert back == value


def test_a_real_corpus_transcript_round_trips() -> None:
    from v2c_desktop.core.importers.local import item_for_file, load_local

    path = corpus_path("transcripts/3blue1brown/2016_eigenvalues/captions.en.srt")
    record = load_local(item_for_file(path), ("en",))
    back = wire(record)
    assert back == record
    assert isinstance(back.transcript.segments[0], Segment)
    assert len(back.transcript.segments) == len(record.transcript.segments) > 50


def test_nested_types_and_tuples_come_back_from_type_hints() -> None:
    request = wire(SearchRequest("q", video_ids=("a", "b"), origins=("stt",)))
    assert request.video_ids == ("a", "b") and isinstance(request.video_ids, tuple)
    record = wire(_record())
    assert isinstance(record.video, Video) and isinstance(record.chapters[0], Chapter)
    # floats sent as whole numbers stay floats; an untagged dict becomes the hinted class
    plain = {"query": "q", "limit": 3, "video_ids": ["x"]}
    assert decode(plain, SearchRequest) == SearchRequest("q", limit=3, video_ids=("x",))
    assert isinstance(decode({"__t": "Segment", "start": 1, "end": 2, "text": ""}).start, float)
    assert decode([["a"], ["b"]], list[tuple[str, ...]]) == [("a",), ("b",)]


def test_frozen_and_slots_dataclasses_rebuild() -> None:
    assert dataclasses.fields(Segment) and Segment.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert wire(Segment(0, 1, "x")) == Segment(0.0, 1.0, "x")
    assert wire(Progress("s", 1, None)) == Progress("s", 1, None)


def test_plain_values_and_marker_keys_survive() -> None:
    value = {"__t": "Segment", "n": [1, 2.5, None, True, "s"], "nested": {"__error": 1}}
    assert wire(value) == value
    assert wire((1, 2)) == [1, 2]  # tuples become lists without a hint
    assert wire(np.float32(0.5)) == 0.5 and wire(np.int64(3)) == 3
    assert wire(Path("/tmp/x")) == "/tmp/x"
    assert decode("/tmp/x", Path) == Path("/tmp/x")


def test_unregistered_types_are_refused_both_ways() -> None:
    @dataclass
    class Secret:
        x: int

    with pytest.raises(TypeError, match="not registered"):
        encode(Secret(1))
    with pytest.raises(TypeError):
        encode(object())
    with pytest.raises(TypeError):
        encode({1: "non-string key"})
    for name in ("Secret", "PosixPath", "os._wrap_close", "V2CError", 7):
        with pytest.raises(V2CError) as caught:
            decode({"__t": name, "x": 1})
        assert caught.value.code == "bad-request"
    # an unregistered dataclass named by a type hint is refused too
    with pytest.raises(V2CError):
        decode({"x": 1}, Secret)
    # a registered class with bad fields is a bad request, not a TypeError
    with pytest.raises(V2CError, match="cannot rebuild Segment"):
        decode({"__t": "Segment", "start": 1})


def test_register_guards_its_registry() -> None:
    with pytest.raises(TypeError):
        register(int)

    @dataclass
    class Segment:  # same name as the domain Segment
        a: int

    with pytest.raises(ValueError, match="already registered"):
        register(Segment)
    assert codec.registered()["Segment"].__module__ == "v2c_desktop.core.domain.videos"


def test_v2c_errors_travel_whole() -> None:
    error = V2CError("not-found", "no video x", "list videos first", {"ref": "x", "n": [1]})
    back = error_from_wire(json.loads(json.dumps(error_to_wire(error))))
    assert (back.code, back.message, back.hint, back.details) == (
        "not-found",
        "no video x",
        "list videos first",
        {"ref": "x", "n": [1]},
    )
    assert wire(error) == error


def test_other_exceptions_become_internal_with_their_first_line() -> None:
    try:
        raise ValueError("bad value\nsecond line\nTraceback (most recent call last): ...")
    except ValueError as exc:
        data = error_to_wire(exc)
    back = error_from_wire(data)
    assert back.code == "internal"
    assert "ValueError: bad value" in back.message
    assert "second line" not in json.dumps(data) and "Traceback" not in json.dumps(data)
    assert error_from_wire({"code": "made-up", "message": "m"}).code == "internal"
    assert error_from_wire("junk").code == "internal"
