"""Every user setting with its default, in one typed place, saved as JSON in the config dir.

The GUI's settings dialog, the CLI flags and the MCP server all read these objects; nothing
else keeps its own defaults. API keys may live here (the user's choice) but are never put
in a repr or a log line; an environment variable name is the better place for them.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from .errors import V2CError
from .paths import app_paths
from .wire import wire

SETTINGS_FILE = "settings.json"


@wire  # the app applies edited model settings in the library's owner (`CoreAPI`)
@dataclass
class ServerSetting:
    """An OpenAI-compatible server (Ollama, LM Studio, llama-server, vLLM, a hosted API)."""

    name: str
    base_url: str
    api_key_env: str | None = None
    api_key: str | None = field(default=None, repr=False)
    chat_models: list[str] = field(default_factory=list)
    embed_models: list[str] = field(default_factory=list)
    context_window: int = 8192
    quality: int = 50
    local: bool = False


@wire
@dataclass
class ModelSettings:
    policy: str = "local-only"
    chat_model: str | None = None
    strict: bool = False
    embed_model: str = "onnx/all-minilm-l6-v2-int8w7"
    servers: list[ServerSetting] = field(default_factory=list)
    detect_local_servers: bool = True
    idle_unload_s: float = 600.0
    threads: int | None = None


@dataclass
class ImportSettings:
    """How web videos are read. `transcribe_without_captions` is the user's consent that a
    web video without any caption track has its audio downloaded by yt-dlp (into a temporary
    folder, deleted afterwards) and transcribed on this computer; off, such a video fails
    with `no-transcript`. It covers an agent's imports too: they download audio only with it."""

    languages: list[str] = field(default_factory=list)
    cookies_from_browser: str | None = None
    proxy: str | None = None
    transcribe_without_captions: bool = False


@dataclass
class ExportSettings:
    """The Obsidian vault exports go into (asked once in the app, changeable), and the
    folder inside it. An agent's `export_obsidian` may write only into this vault (or one
    given to `v2c mcp --vault`)."""

    vault: str | None = None
    folder: str = "v2c"


@wire  # the MCP server sends it with an agent's imports, so the owner applies its limits
@dataclass
class AgentSettings:
    """What an AI agent (an MCP client) may make v2c read; the user's own imports are not
    limited by these.

    `allowed_folders`: the only folders (with everything under them) whose files an agent
    may name, besides the roots its MCP client shares; none by default. `allow_private_hosts`:
    let an agent's URLs (and the caption tracks and redirects they lead to) reach loopback,
    private and link-local addresses, which are refused by default.
    """

    allowed_folders: list[str] = field(default_factory=list)
    allow_private_hosts: bool = False


@dataclass
class Settings:
    models: ModelSettings = field(default_factory=ModelSettings)
    imports: ImportSettings = field(default_factory=ImportSettings)
    export: ExportSettings = field(default_factory=ExportSettings)
    agents: AgentSettings = field(default_factory=AgentSettings)
    last_library: str | None = None


def settings_path() -> Path:
    return app_paths().config_dir / SETTINGS_FILE


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """Only the fields this version knows: a newer file must not break an older app."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__} must be a JSON object, not {type(data).__name__}")
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def _list(value: Any) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"servers must be a JSON list, not {type(value).__name__}")
    return value


def _agent_settings(data: dict[str, Any]) -> AgentSettings:
    agents = AgentSettings(**_known(AgentSettings, data))
    folders = agents.allowed_folders if agents.allowed_folders is not None else []
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise TypeError("agents.allowed_folders must be a list of folder paths")
    if not isinstance(agents.allow_private_hosts, bool):
        raise TypeError("agents.allow_private_hosts must be true or false")
    return AgentSettings(list(folders), agents.allow_private_hosts)


def _import_settings(data: dict[str, Any]) -> ImportSettings:
    imports = ImportSettings(**_known(ImportSettings, data))
    if not isinstance(imports.transcribe_without_captions, bool):
        raise TypeError("imports.transcribe_without_captions must be true or false")
    return imports


def settings_from_dict(data: dict[str, Any]) -> Settings:
    models = dict(_known(ModelSettings, data.get("models") or {}))
    models["servers"] = [
        ServerSetting(**_known(ServerSetting, s)) for s in _list(models.get("servers"))
    ]
    return Settings(
        models=ModelSettings(**models),
        imports=_import_settings(data.get("imports") or {}),
        export=ExportSettings(**_known(ExportSettings, data.get("export") or {})),
        agents=_agent_settings(data.get("agents") or {}),
        last_library=data.get("last_library"),
    )


def load_settings(path: Path | None = None) -> Settings:
    """The saved settings, or the defaults when there is no file yet."""
    path = path or settings_path()
    if not path.exists():
        return Settings()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return settings_from_dict(data)
    except (ValueError, TypeError) as exc:
        raise V2CError(
            "bad-request",
            f"cannot read the settings file {path}: {exc}",
            "fix the file or delete it to go back to the defaults",
        ) from exc


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write atomically (temp file + rename) so a crash never leaves half a settings file."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(asdict(settings), handle, indent=2)
        handle.write("\n")
    os.chmod(tmp, 0o600)  # may hold an API key
    os.replace(tmp, path)
    return path
