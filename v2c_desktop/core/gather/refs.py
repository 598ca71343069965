"""What a video input may be, and the library id it names (importing it first when new).

An input is a URL, a YouTube id, a library id, a local path or an exact title. Anything the
library already holds is used as is; a URL or a file it does not hold is imported first.
Relative paths are made absolute against the caller's working directory, because the owner
that reads the file may run in another one.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import V2CError, bad_request, not_found
from ..importers.inputs import is_web_url
from ..progress import ProgressCallback, ignore_progress

if TYPE_CHECKING:
    from ..api import CoreAPI
    from ..domain.imports import BatchResult
    from ..settings import AgentSettings

_BARE_YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")

#: The hint when an input is neither in the library nor importable; faces name their own
#: ways to find ids (the MCP server names its tools).
MISSING_HINT = "pass a video URL or a file path to import it, or a library id or exact title"


def absolute_input(text: str, cwd: Path) -> str:
    """URLs and ids unchanged; a path that exists (relative to `cwd`) made absolute."""
    text = text.strip()
    if not text or is_web_url(text) or text.startswith("file://"):
        return text
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = cwd / path
    try:
        return str(path.resolve()) if path.exists() else text
    except OSError:  # a name too long for the file system is not a path
        return text


def import_source(text: str) -> str | None:
    """What to hand `CoreAPI.add` for an input the library does not hold, or None.

    A bare 11-character YouTube id becomes its watch URL; URLs and existing paths pass.
    """
    if _BARE_YOUTUBE_ID.match(text) and not Path(text).exists():
        return f"https://www.youtube.com/watch?v={text}"
    return text if importable(text) else None


def importable(text: str) -> bool:
    """Whether `text` is something `CoreAPI.add` can read: a web URL or an existing path."""
    if is_web_url(text) or text.startswith("file://"):
        return True
    try:
        return Path(text).expanduser().exists()
    except OSError:
        return False


#: A face's own check of an input (made absolute) before anything reads it: raises a
#: `V2CError` to refuse it. The MCP server confines an agent's paths and URLs with one.
InputCheck = Callable[[str], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class InputResolver:
    """The input rules bound to one library and one working directory.

    `missing_hint` is what to do when an input names nothing: worded by the face. `check`
    vets every input before the library resolves or imports it; `agent` marks the inputs
    as an agent's, so the library's owner applies the agent limits to what it imports.
    """

    api: CoreAPI
    cwd: Path
    missing_hint: str = MISSING_HINT
    check: InputCheck | None = None
    agent: AgentSettings | None = None

    def absolute(self, text: str) -> str:
        return absolute_input(text, self.cwd)

    async def prepare(self, ref: str) -> str:
        """`ref` made absolute, and passed by `check` (which may refuse it)."""
        text = self.absolute(ref)
        if text and self.check is not None:
            await self.check(text)
        return text

    async def add(
        self,
        source: str,
        *,
        collection: str | None = None,
        languages: tuple[str, ...] = (),
        progress: ProgressCallback | None = None,
    ) -> BatchResult:
        """`CoreAPI.add` of one input, as this face's (an agent's limits go with it)."""
        options: dict[str, Any] = {}
        if collection is not None:
            options["collection"] = collection
        if languages:
            options["languages"] = list(languages)
        if progress is not None:
            options["progress"] = progress
        if self.agent is not None:
            options["agent"] = self.agent
        return await self.api.add([source], **options)

    async def known(self, text: str) -> str | None:
        """The id of a video the library already holds, or None when it holds none."""
        try:
            return await self.api.resolve(text)
        except V2CError as error:
            if error.code == "not-found":
                return None
            raise

    async def video_id(
        self,
        ref: str,
        *,
        languages: tuple[str, ...] = (),
        progress: ProgressCallback = ignore_progress,
    ) -> str:
        """The library id of the video `ref` names, importing a URL or file first if needed."""
        text = await self.prepare(ref)
        if not text:
            raise bad_request("no video given", "pass a URL, a YouTube id, a video id or a path")
        video_id = await self.known(text)
        if video_id is not None:
            return video_id
        source = import_source(text)
        if source is None:
            raise not_found(f"no video {ref!r} in the library", self.missing_hint)
        result = await self.add(source, languages=languages, progress=progress)
        for outcome in result.outcomes:
            if outcome.video_id and outcome.status != "failed":
                return outcome.video_id
        for outcome in result.outcomes:
            if outcome.error is not None:
                raise outcome.error
        raise not_found(f"{ref!r} holds no video", "pass the URL of one video")
