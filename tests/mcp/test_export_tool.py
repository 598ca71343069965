"""`export_obsidian` through a real `v2c mcp` and the official MCP client: refused, with a
hint naming what really sets a vault up, when the user has set none; allowed into the vault
given on the server's command line (`v2c mcp --vault PATH`), with the playlist option."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import corpus_path
from tests.mcp.harness import (
    SERVER,
    McpProcess,
    allow_agents,
    build_library,
    error_of,
    server_env,
    text_of,
)
from tests.unit.owner.toys import remove_dir, short_dir

pytestmark = pytest.mark.corpus

MAKE = "how_we_make_memories_crash_course_psychology_13"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Path]]:
    """(library, home, runtime dir) of a library of one talk; no vault in the settings."""
    base = tmp_path_factory.mktemp("export-tool")
    folder = base / "talks"
    folder.mkdir()
    for suffix in (".en.srt", ".info.json"):
        source = corpus_path(f"transcripts/crashcourse-psychology/{MAKE}{suffix}")
        (folder / source.name).write_bytes(source.read_bytes())
    runtime = short_dir()
    library, home = base / "library.duckdb", base / "home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("V2C_HOME", str(home))
        build_library(library, [str(folder)])
    allow_agents(home, [folder])
    yield library, home, runtime
    remove_dir(runtime)


def test_without_a_vault_the_export_is_refused_with_what_sets_one_up(
    setup: tuple[Path, Path, Path],
) -> None:
    library, home, runtime = setup
    server = McpProcess(library, server_env(home, runtime), name="no-vault")
    try:
        refused = error_of(server.call("export_obsidian", {"playlist": True}))
    finally:
        server.close()
    assert refused["error"] == "bad-request" and "no Obsidian vault" in refused["message"]
    hint = refused["hint"]
    assert "Export to Obsidian…" in hint  # the app's menu, which remembers the vault
    assert "`v2c export obsidian VAULT` remembers it" in hint  # the CLI now does too
    assert '`"vault"` under `export`' in hint  # the settings key itself
    assert "`v2c mcp --vault PATH`" in hint
    assert not server.junk


def test_the_vault_given_to_v2c_mcp_allows_the_export(
    setup: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    library, home, runtime = setup
    vault = tmp_path / "Notes"
    vault.mkdir()
    command = [*SERVER, "--vault", str(vault)]
    server = McpProcess(library, server_env(home, runtime), name="vault", command=command)
    try:
        result = server.call("export_obsidian", {"playlist": True})
        body = json.loads(text_of(result))
        assert not result.is_error, body
        again = json.loads(text_of(server.call("export_obsidian", {})))
    finally:
        server.close()
    assert body["created"] == 4 and body["conflicts"] == []  # video, playlist, index, base
    assert body["open"].startswith("obsidian://open?vault=Notes&file=v2c%2FIndex")
    playlist = (vault / "v2c" / "Playlist.md").read_text(encoding="utf-8")
    assert "playlist: true\n" in playlist and "- [>] [How We Make Memories" in playlist
    assert again["unchanged"] == 4 and again["duplicates"] == []  # the playlist is kept
    assert not server.junk
