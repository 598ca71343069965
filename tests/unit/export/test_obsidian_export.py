"""Export into a real temporary vault, read back, edit like a user, export again."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import corpus_path
from v2c_desktop.core.briefs.events import Brief, BriefCitation, BriefPoint, BriefTopic
from v2c_desktop.core.domain.videos import Segment, Transcript, Video, VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.export import ExportOptions, export_obsidian
from v2c_desktop.core.importers.local import item_for_file, load_local

pytestmark = pytest.mark.corpus

INTRO = (
    "transcripts/crashcourse-psychology/"
    "intro_to_psychology_crash_course_psychology_1_vo4pMVb0R6M.en.srt"
)
NOTE = "v2c/Videos/Intro to Psychology - Crash Course Psychology 1.md"
BLOCK = re.compile(r" \^([A-Za-z0-9-]+)$")


def _intro() -> VideoRecord:
    return load_local(item_for_file(corpus_path(INTRO)))


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    return vault


def _front(text: str) -> dict[str, object]:
    assert text.startswith("---\n")
    value = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(value, dict)
    return value


def _brief(record: VideoRecord) -> Brief:
    seg = record.transcript.segments[10]
    cite = BriefCitation(
        video_id=record.video.id,
        title=record.video.title,
        start=seg.start,
        end=seg.end,
        url=f"https://www.youtube.com/watch?v=vo4pMVb0R6M&t={int(seg.start)}s",
        quote=seg.text,
    )
    point = BriefPoint(
        text="Psychology studies the mind [[x]]", kind="single-source", support=[cite]
    )
    return Brief(
        id="b-1",
        title="What is psychology?",
        question="What is psychology?",
        template="brief",
        bottom_line="The science of behaviour and mind.",
        topics=[BriefTopic("Definition", [point])],
        status="complete",
        model="test-model",
        created_at="2026-03-01T10:20:30",
    )


def test_a_video_note_follows_obsidian_property_rules_and_links_every_line(
    tmp_path: Path,
) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    report = export_obsidian(vault, [record], [])
    assert [(n.kind, n.path, n.action) for n in report.notes] == [
        ("video", NOTE, "created"),
        ("index", "v2c/Index.md", "created"),
        ("base", "v2c/v2c.base", "created"),
    ]
    text = (vault / NOTE).read_text(encoding="utf-8")
    props = _front(text)
    assert props["title"] == "Intro to Psychology: Crash Course Psychology #1"
    assert props["published"] == dt.date(2014, 2, 4)
    assert props["duration"] == 654
    assert props["tags"] == ["v2c/video"]
    assert props["media"] == "https://www.youtube.com/watch?v=vo4pMVb0R6M"
    assert props["v2c_id"] == "youtube:vo4pMVb0R6M"
    for key, value in props.items():  # flat: no nested values
        assert isinstance(value, str | int | dt.date | list), key
        if isinstance(value, list):
            assert all(isinstance(v, str) for v in value), key
    lines = [line for line in text.splitlines() if line.startswith("- [")]
    transcript = [line for line in lines if BLOCK.search(line)]
    assert len(transcript) == len(record.transcript.segments)
    assert transcript[0] == (
        "- [0:01](https://www.youtube.com/watch?v=vo4pMVb0R6M&t=1s) That dream about the "
        "dinosaur in the leotard, those times that you said that thing that ^t-1"
    )
    ids = [BLOCK.search(line).group(1) for line in transcript]  # type: ignore[union-attr]
    assert len(set(ids)) == len(ids)
    assert "### Early Thinkers in Psychology" in text
    assert "- [0:46](https://www.youtube.com/watch?v=vo4pMVb0R6M&t=46s) Early Thinkers" in text
    base = yaml.safe_load((vault / "v2c/v2c.base").read_text(encoding="utf-8"))
    assert base["views"][0]["type"] == "table"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vault"]
    assert not list(vault.rglob("*.v2c-tmp"))


def test_a_brief_cites_twice_the_url_and_the_video_line(tmp_path: Path) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    seg = record.transcript.segments[10]
    second = int(seg.start)
    export_obsidian(vault, [record], [_brief(record)])
    (brief_path,) = (vault / "v2c/Briefs").iterdir()
    assert brief_path.name == "2026-03-01 What is psychology.md"
    text = brief_path.read_text(encoding="utf-8")
    props = _front(text)
    assert props["v2c_brief_id"] == "b-1"
    assert props["created"] == dt.datetime(2026, 3, 1, 10, 20, 30)
    assert props["videos"] == [f"[[{NOTE[:-3]}]]"]
    link = f"[[{NOTE[:-3]}#^t-{second}|{second // 60}:{second % 60:02d}]]"
    assert link in text
    assert f"(https://www.youtube.com/watch?v=vo4pMVb0R6M&t={second}s)" in text
    assert "Psychology studies the mind \\[\\[x\\]\\] *(single source)*" in text
    video = (vault / NOTE).read_text(encoding="utf-8")
    assert f" ^t-{second}\n" in video
    index = (vault / "v2c/Index.md").read_text(encoding="utf-8")
    assert f"- [[{NOTE[:-3]}|Intro to Psychology: Crash Course Psychology 1]]\n" in index
    assert "- [[v2c/Briefs/2026-03-01 What is psychology|What is psychology?]]\n" in index


def test_re_export_unchanged_writes_nothing(tmp_path: Path) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [_brief(record)])
    before = {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()}
    report = export_obsidian(vault, [record], [_brief(record)])
    assert {n.action for n in report.notes} == {"unchanged"}
    assert {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()} == before


def test_user_text_properties_and_tags_survive_an_update(tmp_path: Path) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [])
    path = vault / NOTE
    text = path.read_text(encoding="utf-8")
    text = text.replace('tags:\n  - "v2c/video"\n', 'tags:\n  - "v2c/video"\n  - psychology\n')
    text = text.replace("---\n%% v2c:start", "rating: 5\n---\nMy intro.\n\n%% v2c:start", 1)
    path.write_text(text + "\n## My notes\n\nFreud is overrated [[Freud]].\n", encoding="utf-8")
    renamed = dataclasses.replace(record, video=dataclasses.replace(record.video, title="New"))
    report = export_obsidian(vault, [renamed], [])
    note = report.notes[0]
    assert (note.path, note.action, note.kept_user_text) == (NOTE, "updated", True)
    after = path.read_text(encoding="utf-8")
    props = _front(after)
    assert props["title"] == "New"
    assert props["rating"] == 5
    assert props["tags"] == ["v2c/video", "psychology"]
    assert after.split("---\n", 2)[2].startswith("My intro.\n\n%% v2c:start")
    assert after.endswith("\n## My notes\n\nFreud is overrated [[Freud]].\n")
    assert "# New\n" in after
    assert export_obsidian(vault, [renamed], []).notes[0].action == "unchanged"


def test_an_edit_inside_the_owned_part_is_never_overwritten(tmp_path: Path) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [])
    path = vault / NOTE
    edited = path.read_text(encoding="utf-8").replace("leotard", "leotard (I love this)")
    path.write_text(edited, encoding="utf-8")
    renamed = dataclasses.replace(record, video=dataclasses.replace(record.video, title="New"))
    dry = export_obsidian(vault, [renamed], [], options=ExportOptions(dry_run=True))
    assert dry.notes[0].action == "conflict"
    assert not (vault / dry.notes[0].beside).exists()
    report = export_obsidian(vault, [renamed], [])
    (conflict,) = report.conflicts
    assert conflict.beside == NOTE[:-3] + " (v2c update).md"
    assert path.read_text(encoding="utf-8") == edited
    beside = (vault / conflict.beside).read_text(encoding="utf-8")
    assert _front(beside)["v2c_conflict_of"] == record.video.id
    assert "v2c_id" not in _front(beside)
    assert "# New\n" in beside
    # the conflict copy is not taken for the note next time
    again = export_obsidian(vault, [renamed], [])
    assert (again.notes[0].path, again.notes[0].action) == (NOTE, "conflict")


def test_obsidian_requoting_properties_is_not_an_edit(tmp_path: Path) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [])
    path = vault / NOTE
    _, front, body = path.read_text(encoding="utf-8").split("---\n", 2)
    props = yaml.safe_load(front)
    props["my own"] = "added in the properties editor"
    dumped = yaml.safe_dump(props, allow_unicode=True, sort_keys=False, default_style=None)
    path.write_text(f"---\n{dumped}---\n{body}", encoding="utf-8")
    assert export_obsidian(vault, [record], []).notes[0].action == "unchanged"


def test_a_renamed_and_moved_note_is_updated_where_it_is(tmp_path: Path) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [_brief(record)])
    (vault / "Elsewhere").mkdir()
    moved = vault / "Elsewhere/My intro.md"
    (vault / NOTE).rename(moved)
    renamed = dataclasses.replace(record, video=dataclasses.replace(record.video, title="New"))
    report = export_obsidian(vault, [renamed], [_brief(record)])
    assert (report.notes[0].path, report.notes[0].action) == ("Elsewhere/My intro.md", "updated")
    assert not (vault / NOTE).exists()
    assert "# New\n" in moved.read_text(encoding="utf-8")
    brief = next((vault / "v2c/Briefs").iterdir()).read_text(encoding="utf-8")
    assert "[[Elsewhere/My intro#^t-" in brief


def _hostile(native: str, title: str, text: str) -> VideoRecord:
    video = Video(
        id=f"youtube:{native}",
        title=title,
        platform="youtube",
        native_id=native,
        url=f"https://www.youtube.com/watch?v={native}",
        duration=60,
    )
    segments = [Segment(0.0, 2.0, text), Segment(2.0, 4.0, "plain words")]
    return VideoRecord(video, Transcript("auto-captions", "en", segments))


@pytest.mark.parametrize(
    "title",
    ["../../../outside", "/etc/passwd", "..", "CON", "a/b/c\\d", "x" * 400, "", "---"],
)
def test_hostile_titles_stay_inside_the_export_folder(tmp_path: Path, title: str) -> None:
    vault = _vault(tmp_path)
    report = export_obsidian(vault, [_hostile("aaaaaaaaaaa", title, "hi")], [])
    path = (vault / report.notes[0].path).resolve()
    assert path.parent == (vault / "v2c/Videos").resolve()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vault"]
    assert _front(path.read_text(encoding="utf-8"))["v2c_id"] == "youtube:aaaaaaaaaaa"


def test_same_titles_get_the_video_id(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    (vault / "v2c/Videos").mkdir(parents=True)
    (vault / "v2c/Videos/talk.md").write_text("my own note\n", encoding="utf-8")
    videos = [_hostile("aaaaaaaaaaa", "Talk", "a"), _hostile("bbbbbbbbbbb", "Talk", "b")]
    report = export_obsidian(vault, videos, [])
    assert [n.path for n in report.notes[:2]] == [
        "v2c/Videos/Talk (aaaaaaaaaaa).md",
        "v2c/Videos/Talk (bbbbbbbbbbb).md",
    ]
    assert (vault / "v2c/Videos/talk.md").read_text(encoding="utf-8") == "my own note\n"


def test_a_hostile_transcript_renders_as_plain_text(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    text = "```dataview\nTABLE x\n```\n---\n<% tp.file.title %> key:: v [[Secret]] ![[e.png]] %% c"
    title = 'Evil "title" [[x]]\n---\ntitle: injected'
    report = export_obsidian(vault, [_hostile("ccccccccccc", title, text)], [])
    note = (vault / report.notes[0].path).read_text(encoding="utf-8")
    props = _front(note)
    assert props["title"] == 'Evil "title" [ [x] ] --- title: injected'
    assert list(props).count("title") == 1
    line = next(x for x in note.splitlines() if x.endswith(" ^t-0"))
    for raw in ("```", "<%", "::", "[[", "![", "%%"):
        assert raw not in line.split(") ", 1)[1]
    assert note.count("\n---\n") == 1  # only the end of the front matter


def test_the_export_never_leaves_the_vault(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    record = _hostile("ddddddddddd", "t", "x")
    for folder in ("../x", "/abs", "a/../../x"):
        with pytest.raises(V2CError):
            export_obsidian(vault, [record], [], options=ExportOptions(folder=folder))
    (vault / "v2c").symlink_to(outside, target_is_directory=True)
    with pytest.raises(V2CError):
        export_obsidian(vault, [record], [])
    assert list(outside.iterdir()) == []


def test_a_dry_run_writes_nothing(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    report = export_obsidian(vault, [_intro()], [], options=ExportOptions(dry_run=True))
    assert report.dry_run and len(report.created) == 3
    assert list(vault.iterdir()) == []


def _local(path: Path) -> VideoRecord:
    video = Video(
        id="file:0123456789abcdef",
        title="Lecture one",
        platform="file",
        native_id="0123456789abcdef",
        url="",
        duration=90,
        source_path=str(path),
    )
    segments = [Segment(0.0, 2.0, "Welcome."), Segment(83.5, 86.0, "The key idea.")]
    return VideoRecord(video, Transcript("subtitle file", "en", segments))


def test_a_media_file_inside_the_vault_is_linked_as_a_vault_file(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    clip = vault / "Media" / "lecture one.mp4"
    clip.parent.mkdir()
    clip.write_bytes(b"\x00")
    export_obsidian(vault, [_local(clip)], [])
    text = (vault / "v2c/Videos/Lecture one.md").read_text(encoding="utf-8")
    assert _front(text)["video"] == "[[Media/lecture one.mp4]]"  # what Media Extended plays
    assert "- [[Media/lecture one.mp4#t=83.5|1:23]] The key idea. ^t-83" in text


def test_a_media_file_outside_the_vault_is_a_file_url_with_its_time(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    clip = tmp_path / "elsewhere" / "lecture one.mp4"
    clip.parent.mkdir()
    clip.write_bytes(b"\x00")
    export_obsidian(vault, [_local(clip)], [])
    text = (vault / "v2c/Videos/Lecture one.md").read_text(encoding="utf-8")
    url = f"file://{clip.resolve()}".replace(" ", "%20")
    assert _front(text)["media"] == url
    assert f"- [1:23]({url}#t=83.5) The key idea. ^t-83" in text
