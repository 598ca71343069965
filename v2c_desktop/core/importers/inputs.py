"""Turning what a user typed (`v2c add ...`, a drop on the window) into importable items.

One input may stand for many videos (a folder, a playlist, a channel, a file of URLs);
each becomes its own item so that one failure never stops the others.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..errors import V2CError, unsupported_input
from ..file_kinds import MEDIA_EXTENSIONS, SUBTITLE_EXTENSIONS, URL_LIST_EXTENSIONS
from ..ids import is_web
from ..progress import ProgressCallback, ignore_progress
from .folder_scan import scan_files
from .local import LocalItem, folder_items, item_for_file, media_items
from .reading import check_regular
from .web.expand import read_url_list

ExpandWeb = Callable[[str], Awaitable[list[str]]]
log = logging.getLogger(__name__)


@dataclass
class PlannedItem:
    """One video to import: a local group of files or a web URL, with the input it came from.

    `from_folder` marks an item found by scanning a folder: every file of it was an input
    then, so the report also accounts for the subtitle files it did not use.
    """

    source: str
    local: LocalItem | None = None
    url: str | None = None
    from_folder: bool = False

    @property
    def label(self) -> str:
        return self.url or (self.local.label if self.local else self.source)


@dataclass
class PlanFailure:
    source: str
    error: V2CError


def is_web_url(text: str) -> bool:
    return is_web(text.strip())


def local_input_path(text: str) -> Path | None:
    """The local file or folder an input names (a `file://` URL or a path that exists), or
    None when it names none (a web URL, an id, a title)."""
    text = text.strip()
    if not text or is_web_url(text):
        return None
    try:
        return _as_path(text)
    except (OSError, ValueError):  # a name too long, or with a NUL, is no path
        return None


def _as_path(text: str) -> Path | None:
    if text.startswith("file://"):
        return Path(unquote(urlparse(text).path))
    path = Path(text).expanduser()
    return path if path.exists() else None


async def plan_inputs(
    inputs: list[str], expand_web: ExpandWeb, progress: ProgressCallback = ignore_progress
) -> tuple[list[PlannedItem], list[PlanFailure]]:
    """Expand every input into items; inputs that cannot be read become failures, not errors.

    `progress` hears a folder's walk (`scan` events); cancelling stops the walk too."""
    items: list[PlannedItem] = []
    failures: list[PlanFailure] = []
    for raw in inputs:
        text = raw.strip()
        try:
            items.extend(await _plan_one(text, expand_web, progress))
        except V2CError as exc:
            failures.append(PlanFailure(text, exc))
        except Exception as exc:  # one input's failure, whatever its type, never stops the others
            failures.append(PlanFailure(text, unexpected_failure(text, exc)))
    return items, failures


def unexpected_failure(label: str, exc: Exception) -> V2CError:
    """An item's failure that no reader turned into a `V2CError`, as one that says so.

    The exception's text is left out (it may quote the file) and logged instead, with its
    traceback.
    """
    log.warning("unexpected failure importing %s", label, exc_info=exc)
    if isinstance(exc, RecursionError):
        message = f"{label} could not be read: its data is nested too deeply"
    else:
        message = f"{label} could not be imported: an unexpected error ({type(exc).__name__})"
    return V2CError(
        "internal",
        message,
        "The other inputs were imported. Check the file (it may be damaged or not what its "
        "name says); if it looks fine, report this with the file.",
        {"exception": type(exc).__name__},
    )


async def _plan_one(
    text: str, expand_web: ExpandWeb, progress: ProgressCallback = ignore_progress
) -> list[PlannedItem]:
    if is_web_url(text):
        return [PlannedItem(text, url=url) for url in await expand_web(text)]
    path = _as_path(text)
    if path is None:
        raise unsupported_input(
            f"{text!r} is neither a web address nor a file that exists",
            "give a video, playlist or channel URL (https://...), a subtitle or media file, "
            "a folder, or a .txt file with one URL per line",
        )
    if path.is_dir():
        found = media_items(await scan_files(path, progress))
        if not found:
            raise unsupported_input(
                f"the folder {path} holds no subtitle or media files",
                "add .srt or .vtt files (with their videos or yt-dlp .info.json files)",
            )
        return [PlannedItem(text, local=item, from_folder=True) for item in found]
    suffix = path.suffix.lower()
    if suffix in URL_LIST_EXTENSIONS:
        planned: list[PlannedItem] = []
        for url in await asyncio.to_thread(read_url_list, path):
            planned.extend(await _plan_one(url, expand_web, progress))
        return planned
    if (
        suffix in SUBTITLE_EXTENSIONS
        or suffix in MEDIA_EXTENSIONS
        or path.name.endswith(".info.json")
    ):
        await asyncio.to_thread(check_regular, path)
        if path.name.endswith(".info.json"):
            found = await asyncio.to_thread(folder_items, path.parent)
            siblings = [i for i in found if i.info_json == path]
            if not siblings:
                raise unsupported_input(
                    f"{path.name} has no subtitle or media file beside it",
                    "keep the .srt/.vtt file yt-dlp wrote next to the .info.json",
                )
            return [PlannedItem(text, local=siblings[0])]
        return [PlannedItem(text, local=await asyncio.to_thread(item_for_file, path))]
    raise unsupported_input(
        f"{path.name} is not a file v2c can import",
        "give a .srt or .vtt subtitle file, a media file with subtitles beside it, a folder, "
        "or a .txt file with one URL per line",
    )
