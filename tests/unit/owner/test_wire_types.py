"""Wire types register where they are defined; the owner knows no feature by name.

A new feature adds its event types with `@wire` in its own module and they cross the owner
socket; nothing under `core/owner/` names them, and the codec imports no feature module.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import REPO
from tests.unit.owner.toys import remove_dir, run, short_dir
from v2c_desktop.core.owner import OwnerClient, OwnerServer, RemoteProxy
from v2c_desktop.core.wire import wire, wire_types

FEATURES = ("api", "ask", "library", "search", "store", "domain", "importers", "models")


def test_the_codec_imports_no_feature_module() -> None:
    code = (
        "import sys\n"
        "import v2c_desktop.core.wire_codec\n"
        f"bad = [m for m in sys.modules if m.split('.')[2:3] and m.split('.')[2] in {FEATURES!r}"
        " and m.startswith('v2c_desktop.core.')]\n"
        "print(','.join(sorted(bad)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "", done.stdout


def test_no_module_under_owner_names_a_domain_type() -> None:
    owner = REPO / "v2c_desktop" / "core" / "owner"
    import v2c_desktop.core.api  # noqa: F401  (registers every CoreAPI type)

    outside = {n for n, cls in wire_types().items() if ".owner." not in cls.__module__}
    for path in owner.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        named = {n for n in outside if f"{n}(" in text or f"import {n}" in text}
        assert named <= {"Progress"}, (path.name, named)  # progress events are the protocol's


@wire
@dataclass(frozen=True)
class DigestStep:
    """Stands for a later feature's event type, defined outside core."""

    stage: str
    done: int
    notes: list[str] = field(default_factory=list)


class DigestService:
    async def steps(self, count: int) -> AsyncIterator[DigestStep]:
        for i in range(count):
            yield DigestStep("map", i, [f"video {i}"])

    async def last(self, step: DigestStep) -> DigestStep:
        return DigestStep(step.stage, step.done + 1, [*step.notes, "seen by the owner"])


def test_a_new_features_types_cross_the_owner_without_touching_it() -> None:
    folder = short_dir()

    async def go() -> None:
        server = OwnerServer(DigestService(), folder / "s.sock")
        await server.start()
        client = OwnerClient(folder / "s.sock", client_name="pytest")
        await client.connect()
        try:
            proxy = RemoteProxy(client)
            steps = [s async for s in proxy.steps(3)]
            assert steps == [DigestStep("map", i, [f"video {i}"]) for i in range(3)]
            back = await proxy.last(DigestStep("reduce", 1))
            assert back == DigestStep("reduce", 2, ["seen by the owner"])
        finally:
            await client.aclose()
            await server.aclose()

    try:
        run(go())
    finally:
        remove_dir(folder)


def test_core_api_registers_every_type_its_methods_carry() -> None:
    code = (
        "import v2c_desktop.core.api\n"
        "from v2c_desktop.core.wire import wire_types\n"
        "print(' '.join(sorted(wire_types())))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    names = set(done.stdout.split())
    expected = {
        *("Segment", "Chapter", "Transcript", "Video", "VideoRecord", "VideoSummary"),
        *("Collection", "ImportOutcome", "BatchResult", "SearchRequest", "SearchHit"),
        *("SearchResult", "Progress", "AskRequest", "AskMeta", "AskReasoning", "AskDelta"),
        *("AskDone", "AskError", "SourceInfo", "ModelSuggestion", "Citation", "LibraryStatus"),
        *("ChatRecord", "ChatMessageRecord"),
    }
    assert expected <= names, expected - names


def test_path_of_this_file_is_outside_core() -> None:
    assert "v2c_desktop" not in Path(__file__).parts
