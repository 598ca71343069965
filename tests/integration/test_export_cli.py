"""`v2c export obsidian|markdown|json` on a real library of corpus transcripts, into a real
temporary vault: what is written, a dry run that writes nothing, re-export that keeps the
user's words, a conflict reported instead of an overwrite, hostile titles kept inside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.unit.briefs.test_pipeline import FORGET, MAKE, QUESTION, folder
from v2c_desktop.cli.main import main as cli_main
from v2c_desktop.core.settings import ExportSettings, Settings, load_settings, save_settings

pytestmark = pytest.mark.corpus


def _json(capsys: pytest.CaptureFixture[str]) -> dict:  # type: ignore[type-arg]
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], str]:
    """A library of two memory talks in a collection, and an extractive brief of them."""
    lib = ["--library", str(tmp_path / "lib.duckdb")]
    assert (
        cli_main([*lib, "add", str(folder(tmp_path, MAKE, FORGET)), "--collection", "Memory"]) == 0
    )
    capsys.readouterr()
    args = [*lib, "brief", QUESTION, "--collection", "Memory", "--extractive", "--json"]
    assert cli_main([*args, "--title", "Memory notes"]) == 0
    return lib, _json(capsys)["id"]


def test_export_writes_the_vault_and_a_re_export_keeps_what_the_user_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], library: tuple[list[str], str]
) -> None:
    lib, brief_id = library
    vault = tmp_path / "Vault"
    (vault / ".obsidian").mkdir(parents=True)
    base = [*lib, "export", "obsidian", str(vault), "--collection", "Memory", "--brief", brief_id]

    assert cli_main([*base, "--dry-run", "--json"]) == 0
    planned = _json(capsys)
    assert planned["dry_run"] and {n["action"] for n in planned["notes"]} == {"created"}
    assert not (vault / "v2c").exists()  # a dry run writes nothing

    assert cli_main([*base, "--json"]) == 0
    report = _json(capsys)
    paths = sorted(n["path"] for n in report["notes"])
    assert len(paths) == 5 and "v2c/Index.md" in paths and "v2c/v2c.base" in paths
    assert any(p.startswith("v2c/Briefs/") and p.endswith(" Memory notes.md") for p in paths)
    assert report["open"].startswith("obsidian://open?vault=Vault&file=v2c%2FBriefs%2F")
    video = next(vault.glob("v2c/Videos/How We Make Memories*.md"))
    text = video.read_text(encoding="utf-8")
    props = yaml.safe_load(text.split("---\n")[1])
    assert props["v2c_id"] == "youtube:bSycdIx-C48" and str(props["published"]) == "2014-05-05"
    assert props["media"] == "https://www.youtube.com/watch?v=bSycdIx-C48"
    assert all(not isinstance(v, dict) for v in props.values())  # Obsidian: no nested values

    # the user writes below the app's part and adds a property: both survive
    mine = text.replace("---\n%% v2c:start", "rating: 5\n---\n%% v2c:start", 1)
    video.write_text(mine + "\nMy own thoughts on this talk.\n", encoding="utf-8")
    assert cli_main([*base, "--json"]) == 0
    again = _json(capsys)
    assert not [n for n in again["notes"] if n["action"] == "conflict"]
    kept = video.read_text(encoding="utf-8")
    assert "My own thoughts on this talk." in kept and "rating: 5" in kept

    # an edit inside the app's part: the note is left alone, the update goes beside it
    edited = kept.replace("Clive Wearing", "C. Wearing", 1)
    video.write_text(edited, encoding="utf-8")
    assert cli_main(base) == 1  # a conflict is a non-zero exit, with the words to act on
    out = capsys.readouterr().out
    assert "conflict" in out and "(v2c update).md" in out
    assert "To take the new version, empty the part between the v2c markers" in out
    assert "To keep yours, delete the (v2c update) copy" in out
    assert video.read_text(encoding="utf-8") == edited
    (copy,) = vault.glob("v2c/Videos/How We Make Memories*(v2c update).md")

    # the user keeps their version: the conflict ends, and the export exits 0 again
    copy.unlink()
    assert cli_main(base) == 0
    out = capsys.readouterr().out
    assert "you kept your own version" in out and "0 in conflict" in out
    assert video.read_text(encoding="utf-8") == edited


def test_the_vault_comes_from_the_settings_or_the_command_says_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], library: tuple[list[str], str]
) -> None:
    lib, _ = library
    assert cli_main([*lib, "export", "obsidian", "--json"]) != 0
    error = _json(capsys)
    assert error["error"] == "bad-request" and "v2c export obsidian" in error["hint"]
    vault = tmp_path / "Saved vault"
    vault.mkdir()
    save_settings(Settings(export=ExportSettings(vault=str(vault), folder="Talks/v2c")))
    assert cli_main([*lib, "export", "obsidian", "--json"]) == 0
    assert _json(capsys)["folder"] == "Talks/v2c"
    assert len(list((vault / "Talks" / "v2c" / "Videos").glob("*.md"))) == 2


def test_a_hostile_title_stays_inside_the_vault_as_plain_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], library: tuple[list[str], str]
) -> None:
    lib, _ = library
    hostile = "../../outside/CON [[x]] ```<% tp.file %>``` #tag"
    assert cli_main([*lib, "rename", "youtube:bSycdIx-C48", hostile]) == 0
    vault = tmp_path / "Vault"
    vault.mkdir()
    capsys.readouterr()
    assert cli_main([*lib, "export", "obsidian", str(vault), "--json"]) == 0
    notes = _json(capsys)["notes"]
    assert all(not n["path"].startswith("..") and n["path"].startswith("v2c/") for n in notes)
    assert not (tmp_path / "outside").exists()
    video = next(n for n in notes if n["subject_id"] == "youtube:bSycdIx-C48")
    _, front, body = (vault / video["path"]).read_text(encoding="utf-8").split("---\n", 2)
    title = yaml.safe_load(front)["title"]  # one string property, and no link in it
    assert title.startswith("../../outside/CON") and "[[" not in title
    assert "```" not in body and "<%" not in body and "[[x]]" not in body


def test_one_brief_as_markdown_or_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], library: tuple[list[str], str]
) -> None:
    lib, brief_id = library
    target = tmp_path / "brief.md"
    assert cli_main([*lib, "export", "markdown", "--brief", brief_id, "--output", str(target)]) == 0
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Memory notes\n") and "&t=" in text
    assert cli_main([*lib, "export", "json", "--brief", brief_id]) == 0
    assert _json(capsys)["id"] == brief_id


def test_the_first_vault_is_remembered_and_options_name_and_play(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], library: tuple[list[str], str]
) -> None:
    lib, _ = library
    vault = tmp_path / "Notes"
    vault.mkdir()
    first = [*lib, "export", "obsidian", str(vault), "--channel-in-name", "--playlist"]
    assert cli_main([*first, "--json"]) == 0
    assert "remembered" in capsys.readouterr().err
    assert load_settings().export.vault == str(vault.resolve())
    names = sorted(p.name for p in (vault / "v2c" / "Videos").glob("*.md"))
    assert names == [
        "CrashCourse - How We Make Memories - Crash Course Psychology 13.md",
        "CrashCourse - Remembering and Forgetting - Crash Course Psychology 14.md",
    ]
    playlist = (vault / "v2c" / "Playlist.md").read_text(encoding="utf-8")
    assert yaml.safe_load(playlist.split("---\n")[1])["playlist"] is True
    assert (
        "- [>] [How We Make Memories" in playlist
        and "(https://www.youtube.com/watch?v=" in playlist
    )

    # no vault argument: the remembered one; another vault given later is not remembered
    assert cli_main([*lib, "export", "obsidian", "--json"]) == 0
    assert _json(capsys)["vault"] == str(vault.resolve())
    other = tmp_path / "Other"
    other.mkdir()
    assert cli_main([*lib, "export", "obsidian", str(other), "--json"]) == 0
    assert "remembered" not in capsys.readouterr().err
    assert load_settings().export.vault == str(vault.resolve())


def test_one_chat_as_markdown_or_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], library: tuple[list[str], str]
) -> None:
    lib, _ = library
    assert (
        cli_main([*lib, "ask", QUESTION, "--collection", "Memory", "--extractive", "--json"]) == 0
    )
    chat = _json(capsys)["chat_id"]
    target = tmp_path / "chat.md"
    assert cli_main([*lib, "export", "markdown", "--chat", chat, "--output", str(target)]) == 0
    text = target.read_text(encoding="utf-8")
    assert f"## {QUESTION}" in text and "](https://www.youtube.com/watch?v=" in text
    assert cli_main([*lib, "export", "json", "--chat", chat]) == 0
    body = _json(capsys)
    assert body["id"] == chat and body["messages"][0]["text"] == QUESTION
    assert cli_main([*lib, "export", "markdown", "--chat", "chat-nope"]) != 0
