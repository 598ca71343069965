"""What an agent may hand the library: local paths inside the folders the user allows (or
the roots the agent's client shares), and URLs to public hosts unless the user allows more.

Agents are not the user. A path or URL an agent passes is checked here before anything
resolves or imports it; the MCP face supplies the client's roots and words nothing itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from ..errors import V2CError
from ..importers.inputs import is_web_url, local_input_path
from ..importers.web.hosts import HostGuard
from ..settings import AgentSettings, Settings, settings_path

RootsLister = Callable[[], Awaitable[list[Path]]]

ALLOW_FOLDER_HINT = (
    "Agents may read local files only inside the folders the user allows. Ask the user to "
    "allow this folder: they add it to `agents.allowed_folders` in v2c's settings file "
    "({settings}), or share it as a root in your MCP client. Until then, pass the video's "
    "URL or its library id instead."
)


async def check_agent_input(text: str, settings: Settings, roots: RootsLister) -> None:
    """Refuse an agent's local path outside the allowed folders and roots, and a URL to a
    loopback, private or link-local host (unless the user allows those)."""
    agents = settings.agents
    if is_web_url(text):
        if not agents.allow_private_hosts:
            await HostGuard(proxy=settings.imports.proxy).check(text)
        return
    path = local_input_path(text)
    if path is not None:
        await confine(path, agents, roots)


async def confine(path: Path, agents: AgentSettings, roots: RootsLister) -> None:
    """Raise unless `path` (resolved) is inside an allowed folder or a client root."""
    try:
        target = path.expanduser().resolve()
    except (OSError, RuntimeError):
        target = path
    allowed = [Path(folder).expanduser() for folder in agents.allowed_folders]
    allowed = [folder for folder in allowed if folder.is_absolute()]  # never cwd-relative
    allowed.extend(await roots())
    for folder in allowed:
        try:
            base = folder.resolve()
        except (OSError, RuntimeError):
            continue
        if target == base or base in target.parents:
            return
    raise V2CError(
        "bad-request",
        f"{target} is outside the folders the user lets agents read",
        ALLOW_FOLDER_HINT.format(settings=settings_path()),
        {"path": str(target), "allowed_folders": [str(f) for f in allowed]},
    )
