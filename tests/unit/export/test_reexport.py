"""Re-export after what users do in Obsidian: rename a note (Obsidian rewrites the links to
it), export a part of the library, settle a conflict, duplicate a note. Real files in a
temporary vault, exported by the real exporter, edited the way Obsidian or the user would."""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

import pytest
import yaml

from tests.unit.export.test_obsidian_export import NOTE, _brief, _front, _hostile, _intro, _vault
from v2c_desktop.core.domain.videos import Collection
from v2c_desktop.core.export import ExportOptions, export_obsidian

pytestmark = pytest.mark.corpus

OLD = NOTE[:-3]  # v2c/Videos/Intro to Psychology - Crash Course Psychology 1


def _obsidian_rename(vault: Path, old: str, new: str, link_as: str) -> None:
    """What Obsidian does when the user renames (or moves) a note: the file moves, and every
    link to it in every other note is rewritten, to `link_as` (the full path, or the bare
    name when the user's link format is "shortest path when possible")."""
    target = vault / f"{new}.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    (vault / f"{old}.md").rename(target)
    for note in vault.rglob("*.md"):
        text = note.read_text(encoding="utf-8")
        rewritten = re.sub(r"\[\[" + re.escape(old) + r"(?=[#|\]])", "[[" + link_as, text)
        if rewritten != text:
            note.write_text(rewritten, encoding="utf-8")


@pytest.mark.parametrize(
    ("new", "link_as"),
    [
        ("v2c/Videos/Psych intro", "v2c/Videos/Psych intro"),  # links keep the folder
        ("v2c/Videos/Psych intro", "Psych intro"),  # shortest path: the bare name
        ("Elsewhere/Psych intro", "Psych intro"),  # moved out of the export folder too
    ],
)
def test_renaming_a_note_in_obsidian_is_no_conflict_and_links_follow_it(
    tmp_path: Path, new: str, link_as: str
) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [_brief(record)])
    brief = next((vault / "v2c/Briefs").iterdir())
    brief.write_text(brief.read_text(encoding="utf-8") + "\nMy reading notes.\n", "utf-8")
    _obsidian_rename(vault, OLD, new, link_as)
    assert f"[[{link_as}#^t-" in brief.read_text(encoding="utf-8")  # as Obsidian left it

    report = export_obsidian(vault, [record], [_brief(record)])
    assert report.conflicts == []
    assert report.notes[0].path == f"{new}.md"
    text = brief.read_text(encoding="utf-8")
    assert f"[[{new}#^t-" in text and OLD not in text  # written to the note's current path
    assert _front(text)["videos"] == [f"[[{new}]]"]
    assert text.endswith("\nMy reading notes.\n")
    index = (vault / "v2c/Index.md").read_text(encoding="utf-8")
    assert f"[[{new}|" in index and OLD not in index
    assert not (vault / f"{OLD}.md").exists()
    again = export_obsidian(vault, [record], [_brief(record)])
    assert {n.action for n in again.notes} == {"unchanged"}


def test_an_edit_of_a_link_label_is_still_an_edit(tmp_path: Path) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [_brief(record)])
    brief = next((vault / "v2c/Briefs").iterdir())
    text = brief.read_text(encoding="utf-8")
    edited = re.sub(r"(#\^t-\d+)\|(\d+:\d+)\]\]", r"\1|see here]]", text, count=1)
    assert edited != text
    brief.write_text(edited, encoding="utf-8")
    (conflict,) = export_obsidian(vault, [record], [_brief(record)]).conflicts
    assert conflict.kind == "brief" and brief.read_text(encoding="utf-8") == edited


def _talks() -> list:  # type: ignore[type-arg]
    return [_hostile(f"{c * 11}", f"Talk {c}", f"words of {c}") for c in "abc"]


def test_the_index_lists_every_note_of_the_folder_not_only_this_exports(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    talks = _talks()
    record = _intro()
    course = Collection(id="c1", name="Course", video_ids=[v.video.id for v in talks[:2]])
    export_obsidian(vault, [*talks, record], [_brief(record)], [course])
    before = (vault / "v2c/Index.md").read_text(encoding="utf-8")

    report = export_obsidian(vault, [talks[2]], [], [course])  # one video alone
    index = (vault / "v2c/Index.md").read_text(encoding="utf-8")
    assert index == before  # nothing cut: still every video and the brief
    assert next(n for n in report.notes if n.kind == "index").action == "unchanged"
    body = index.split("%% v2c:start", 1)[1]
    assert body.index("## Course") < body.index("[[v2c/Videos/Talk a|Talk a]]")
    assert body.index("[[v2c/Videos/Talk b|Talk b]]") < body.index("## Other videos")
    for name in ("Talk c", "Intro to Psychology - Crash Course Psychology 1"):
        assert f"[[v2c/Videos/{name}|" in body
    assert "[[v2c/Briefs/2026-03-01 What is psychology|What is psychology?]]" in body

    (vault / "v2c/Videos/Talk c.md").unlink()  # the user deleted a note: no longer listed
    export_obsidian(vault, [talks[0]], [], [course])
    assert "Talk c" not in (vault / "v2c/Index.md").read_text(encoding="utf-8")


def test_a_playlist_note_media_extended_plays_is_written_on_request(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    talks = _talks()
    export_obsidian(vault, talks[:2], [])
    assert not (vault / "v2c/Playlist.md").exists()  # off by default

    report = export_obsidian(vault, talks[:2], [], options=ExportOptions(playlist=True))
    assert ("playlist", "v2c/Playlist.md", "created") in [
        (n.kind, n.path, n.action) for n in report.notes
    ]
    text = (vault / "v2c/Playlist.md").read_text(encoding="utf-8")
    assert _front(text)["playlist"] is True  # a YAML boolean, as Media Extended checks
    items = [line for line in text.splitlines() if line.startswith("- ")]
    assert items == [
        "- [>] [Talk a](https://www.youtube.com/watch?v=aaaaaaaaaaa)",
        "- [>] [Talk b](https://www.youtube.com/watch?v=bbbbbbbbbbb)",
    ]
    index = (vault / "v2c/Index.md").read_text(encoding="utf-8")
    assert "[[v2c/Playlist|Playlist]]" in index

    export_obsidian(vault, [talks[2]], [])  # once there is a playlist, it is kept up to date
    text = (vault / "v2c/Playlist.md").read_text(encoding="utf-8")
    assert "- [>] [Talk c](https://www.youtube.com/watch?v=ccccccccccc)" in text


def test_a_playlist_plays_a_media_file_inside_the_vault_as_a_vault_link(tmp_path: Path) -> None:
    from tests.unit.export.test_obsidian_export import _local

    vault = _vault(tmp_path)
    clip = vault / "Media" / "lecture one.mp4"
    clip.parent.mkdir()
    clip.write_bytes(b"\x00")
    export_obsidian(vault, [_local(clip)], [], options=ExportOptions(playlist=True))
    text = (vault / "v2c/Playlist.md").read_text(encoding="utf-8")
    assert "\n- [>] [[Media/lecture one.mp4|Lecture one]]\n" in text


# -- conflicts the user settles ------------------------------------------------------------


def _conflicted(tmp_path: Path) -> tuple[Path, Path, str]:
    """A vault whose video note the user edited inside the app's part, exported again with
    a new title: (vault, note, the edited text)."""
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [])
    note = vault / NOTE
    edited = note.read_text(encoding="utf-8").replace("leotard", "leotard (I love this)")
    note.write_text(edited + "\nMine below.\n", encoding="utf-8")
    (conflict,) = export_obsidian(vault, [_renamed(record)], []).conflicts
    assert (vault / conflict.beside).exists()
    return vault, note, edited + "\nMine below.\n"


def _renamed(record, title: str = "New"):  # type: ignore[no-untyped-def]
    return dataclasses.replace(record, video=dataclasses.replace(record.video, title=title))


def test_deleting_the_update_beside_keeps_your_version_and_ends_the_conflict(
    tmp_path: Path,
) -> None:
    vault, note, edited = _conflicted(tmp_path)
    record = _intro()
    (vault / NOTE.replace(".md", " (v2c update).md")).unlink()
    for _ in range(2):  # settled, and it stays settled
        report = export_obsidian(vault, [_renamed(record)], [])
        assert report.conflicts == []
        assert (report.notes[0].action, report.notes[0].kept_user_text) == ("unchanged", True)
        assert "deleted the v2c update" in report.notes[0].reason
        assert note.read_text(encoding="utf-8") == edited
        assert not (vault / NOTE.replace(".md", " (v2c update).md")).exists()
    # a newer version than the one turned down is offered again
    (conflict,) = export_obsidian(vault, [_renamed(record, "Newer")], []).conflicts
    assert "# Newer\n" in (vault / conflict.beside).read_text(encoding="utf-8")
    assert note.read_text(encoding="utf-8") == edited


def test_emptying_the_app_part_takes_the_new_version_and_keeps_your_text(
    tmp_path: Path,
) -> None:
    vault, note, edited = _conflicted(tmp_path)
    start, end = edited.index("%% v2c:start"), edited.index("%% v2c:end")
    first_line_end = edited.index("\n", start)
    note.write_text(edited[: first_line_end + 1] + edited[end:], encoding="utf-8")
    report = export_obsidian(vault, [_renamed(_intro())], [])
    assert (report.notes[0].action, report.conflicts) == ("updated", [])
    assert "emptied" in report.notes[0].reason
    text = note.read_text(encoding="utf-8")
    assert "# New\n" in text and text.endswith("\nMine below.\n")
    assert "(I love this)" not in text
    assert not (vault / NOTE.replace(".md", " (v2c update).md")).exists()  # untouched: gone
    assert export_obsidian(vault, [_renamed(_intro())], []).notes[0].action == "unchanged"


def _corrected(record):  # type: ignore[no-untyped-def]
    """The same video with one caption line corrected: only the app's part changes."""
    segments = list(record.transcript.segments)
    segments[3] = dataclasses.replace(segments[3], text="corrected caption words")
    transcript = dataclasses.replace(record.transcript, segments=segments)
    return dataclasses.replace(record, transcript=transcript)


def _part(text: str) -> str:
    return text[text.index("%% v2c:start") : text.index("%% v2c:end")]


def test_copying_the_new_part_in_ends_the_conflict(tmp_path: Path) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [])
    note = vault / NOTE
    note.write_text(note.read_text(encoding="utf-8").replace("leotard", "tutu"), "utf-8")
    (conflict,) = export_obsidian(vault, [_corrected(record)], []).conflicts
    beside = vault / conflict.beside
    beside.write_text(beside.read_text(encoding="utf-8") + "\nI read this copy.\n", "utf-8")
    mine = note.read_text(encoding="utf-8")
    note.write_text(mine.replace(_part(mine), _part(beside.read_text("utf-8"))), "utf-8")

    report = export_obsidian(vault, [_corrected(record)], [])
    assert (report.notes[0].action, report.conflicts) == ("updated", [])
    assert "matches the new one" in report.notes[0].reason
    assert "corrected caption words" in note.read_text(encoding="utf-8")
    assert beside.exists()  # the user wrote in the copy: it is theirs now, and stays
    assert export_obsidian(vault, [_corrected(record)], []).notes[0].action == "unchanged"


def test_the_update_beside_never_overwrites_a_file_of_the_user(tmp_path: Path) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [])
    mine = vault / NOTE.replace(".md", " (v2c update).md")
    mine.write_text("my own note of that name\n", encoding="utf-8")
    note = vault / NOTE
    note.write_text(note.read_text(encoding="utf-8").replace("leotard", "tutu"), "utf-8")
    (conflict,) = export_obsidian(vault, [_renamed(record)], []).conflicts
    assert conflict.beside == NOTE.replace(".md", " (v2c update 2).md")
    assert mine.read_text(encoding="utf-8") == "my own note of that name\n"
    (again,) = export_obsidian(vault, [_renamed(record)], []).conflicts
    assert again.beside == conflict.beside  # its own copy is reused, not a third name


def test_the_base_leaves_out_the_updates_beside_notes(tmp_path: Path) -> None:
    vault, _, _ = _conflicted(tmp_path)
    base = yaml.safe_load((vault / "v2c/v2c.base").read_text(encoding="utf-8"))
    assert base["filters"] == {
        "and": ['file.inFolder("v2c")', {"not": ['file.hasProperty("v2c_conflict_of")']}]
    }
    copy = vault / NOTE.replace(".md", " (v2c update).md")
    assert "v2c_conflict_of" in _front(copy.read_text(encoding="utf-8"))


# -- one id, two notes ---------------------------------------------------------------------


def test_a_duplicated_note_is_reported_and_the_one_at_its_place_is_updated(
    tmp_path: Path,
) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [])
    copy = vault / "Aaa copy.md"  # sorts first, and is the newer file
    copy.write_bytes((vault / NOTE).read_bytes())
    report = export_obsidian(vault, [_corrected(record)], [])
    video = report.notes[0]
    assert (video.path, video.action, video.duplicates) == (NOTE, "updated", ("Aaa copy.md",))
    assert report.duplicated == [video]
    assert "corrected caption words" in (vault / NOTE).read_text(encoding="utf-8")
    assert "corrected caption words" not in copy.read_text(encoding="utf-8")


def test_of_two_moved_copies_the_one_modified_last_is_updated(tmp_path: Path) -> None:
    record = _intro()
    vault = _vault(tmp_path)
    export_obsidian(vault, [record], [])
    (vault / "A").mkdir()
    (vault / "B").mkdir()
    older, newer = vault / "A/one.md", vault / "B/two.md"
    (vault / NOTE).rename(newer)
    older.write_bytes(newer.read_bytes())
    os.utime(older, (1_000_000_000, 1_000_000_000))
    report = export_obsidian(vault, [_renamed(record)], [])
    assert (report.notes[0].path, report.notes[0].duplicates) == ("B/two.md", ("A/one.md",))
    assert "# New\n" in newer.read_text(encoding="utf-8")
    assert "# New\n" not in older.read_text(encoding="utf-8")


def test_a_base_in_conflict_settles_too(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    talks = _talks()
    export_obsidian(vault, talks, [])
    base = vault / "v2c/v2c.base"
    mine = base.read_text(encoding="utf-8").replace("name: Videos", "name: My videos")
    base.write_text(mine, encoding="utf-8")
    dry = export_obsidian(vault, talks, [], options=ExportOptions(dry_run=True))
    assert [n.kind for n in dry.conflicts] == ["base"]
    assert not (vault / "v2c/.v2c-conflicts.json").exists()  # a dry run remembers nothing
    (conflict,) = export_obsidian(vault, talks, []).conflicts
    (vault / conflict.beside).unlink()
    report = export_obsidian(vault, talks, [])
    assert report.conflicts == [] and base.read_text(encoding="utf-8") == mine
