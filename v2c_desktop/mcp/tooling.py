"""How a tool is registered, so every tool (now and later: briefs, extraction) behaves alike.

Each tool module has `register(server, deps)` and adds its tools with `add_tool`, which:

- turns any `V2CError` into an `isError` result with the spec's JSON body, and any other
  exception into an `internal` one (the traceback goes to stderr, never to the agent);
- lets a tool take inputs whose names are Python keywords (`from`), through `aliases`;
- keeps the SDK's schema generation: inputs come from the function signature with
  `Annotated[..., Field(description=...)]`, and a structured tool declares its output with
  `Annotated[CallToolResult, OutputModel]` as its return type.

`Progress` turns multi-video work into MCP progress notifications.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.progress import Progress as CoreProgress
from v2c_desktop.core.progress import ProgressCallback

from .results import error_result, internal_error

log = logging.getLogger(__name__)

#: The stage of a speech-to-text transcription's progress (`core.stt.whisper.STAGE`).
TRANSCRIBE_STAGE = "transcribe"

ToolFn = Callable[..., Awaitable[CallToolResult]]


def guarded(fn: ToolFn, aliases: Mapping[str, str] | None = None) -> ToolFn:
    """`fn` with errors as results; `aliases` maps input names to `fn`'s parameter names.

    `functools.wraps` keeps `fn`'s signature and annotations visible (`inspect.signature`
    follows `__wrapped__`), so the SDK builds the schema from `fn` while calling this wrapper.
    The SDK passes aliased inputs under their alias (`from`), which we rename back.
    """
    renames = dict(aliases or {})

    @functools.wraps(fn)
    async def run(**kwargs: Any) -> CallToolResult:
        kwargs = {renames.get(key, key): value for key, value in kwargs.items()}
        try:
            return await fn(**kwargs)
        except V2CError as error:
            return error_result(error)
        except Exception as exc:  # a bug: the agent gets a readable error, stderr the trace
            log.exception("tool %s failed", fn.__name__)
            return error_result(internal_error(exc))

    return run


def add_tool(
    server: MCPServer[Any],
    fn: ToolFn,
    *,
    name: str,
    description: str,
    annotations: ToolAnnotations,
    aliases: Mapping[str, str] | None = None,
    meta: dict[str, Any] | None = None,
) -> None:
    """Register `fn` as the tool `name` (snake_case, final once published).

    `meta` is the tool definition's `_meta` (an MCP Apps view: `{"ui": {"resourceUri": ...}}`).
    """
    server.add_tool(
        guarded(fn, aliases),
        name=name,
        title=annotations.title,
        description=description,
        annotations=annotations,
        meta=meta,
    )


class Progress:
    """Progress notifications for one call: `total` units, strictly increasing values.

    A no-op when the client sent no progress token (the SDK checks). `listener(base)` feeds
    the core's own progress events (an import of a playlist) in as fractions of one unit,
    so a long single input still shows movement.
    """

    def __init__(self, ctx: Context[Any, Any] | None, total: int) -> None:
        self._ctx = ctx
        self.total = max(total, 1)  # may grow once a collection's size is known
        self._last = 0.0
        self._tasks: set[asyncio.Task[None]] = set()

    async def advance(self, done: float, message: str) -> None:
        if self._ctx is None or done <= self._last:
            return
        self._last = done
        try:
            await self._ctx.report_progress(done, self.total, message)
        except Exception:  # a client that left mid-call must not fail the work
            log.debug("progress notification not sent", exc_info=True)

    def listener(self, base: int, stage: str = "import") -> ProgressCallback:
        """A core progress callback mapping `done/total` of `stage` events to `base +
        fraction` of a unit.

        An import of a media file without subtitles transcribes its speech, which takes
        minutes: its `transcribe` events (audio seconds done of total, with the speed and
        the time left in their message) move the progress within the item being imported.
        """
        item = [0, 1]  # the item being imported: done of total, from the last `stage` event

        def hear(event: CoreProgress) -> None:
            if not event.total:
                return
            if event.stage == stage:
                item[:] = [event.done, event.total]
                fraction = event.done / event.total
            elif stage == "import" and event.stage == TRANSCRIBE_STAGE:
                fraction = (item[0] + min(event.done / event.total, 1.0)) / item[1]
            else:
                return
            fraction = min(fraction, 0.99)
            task = asyncio.get_running_loop().create_task(
                self.advance(base + fraction, event.message)
            )
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

        return hear

    async def drain(self) -> None:
        """Wait for scheduled notifications, so none arrives after the result."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
