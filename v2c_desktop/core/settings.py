"""Every user setting with its default, in one typed place, saved as JSON in the config dir.

The GUI's settings dialog, the CLI flags and the MCP server all read these objects; nothing
else keeps its own defaults. API keys may live here (the user's choice) but are never put
in a repr or a log line; an environment variable name is the better place for them.

The bearer tokens of the MCP server over HTTP (`mcp_http.tokens`) are kept as hashes only,
and are written only by `save_http_tokens` (through `core/mcp_tokens.py`): `save_settings`
keeps the tokens the file holds, so a window or a service saving an older copy of the
settings can neither bring back a revoked token nor drop a new one.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields, replace
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


#: The SponsorBlock API the owner asks for a YouTube video's skip segments (`core/sponsor/`).
SPONSORBLOCK_SERVER = "https://sponsor.ajay.app"


@dataclass
class SponsorBlockSettings:
    """SponsorBlock, the crowd-sourced list of sponsor reads and other parts of YouTube
    videos that viewers skip.

    `skip_in_player`: when the app opens a YouTube video it asks SponsorBlock for the
    video's segments (sending only the first 4 characters of a hash of its id, so SponsorBlock
    does not learn which video) and keeps them with it, and the player jumps over the sponsor
    reads while it plays; off (the default), the player asks nothing. `server`: the
    SponsorBlock API to ask (another instance or a mirror, http or https).
    """

    skip_in_player: bool = False
    server: str = SPONSORBLOCK_SERVER


@dataclass
class ExportSettings:
    """The Obsidian vault exports go into (asked once in the app, changeable), and the
    folder inside it. An agent's `export_obsidian` may write only into this vault (or one
    given to `v2c mcp --vault`)."""

    vault: str | None = None
    folder: str = "v2c"


NOTION_API = "https://api.notion.com"
NOTION_TOKEN_ENV = "NOTION_TOKEN"


@dataclass
class NotionSettings:
    """Exporting to Notion: the integration's token (or the environment variable holding
    it), the page new pages go under (its URL or id) and the API's address. The token is
    sent only to `api_url` and never written to a log or an error."""

    token: str | None = field(default=None, repr=False)
    token_env: str = NOTION_TOKEN_ENV
    parent_page: str = ""
    api_url: str = NOTION_API

    def resolved_token(self) -> str | None:
        return self.token or os.environ.get(self.token_env) or None


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


#: The port the app starts `v2c mcp --http` on unless the user picks another.
DEFAULT_HTTP_PORT = 8732


@dataclass
class HttpToken:
    """A bearer token for the MCP server over HTTP. The token itself is shown once, when it
    is made; only its SHA-256 (hex) is kept, with the first characters to recognise it by."""

    name: str
    created: str  # ISO 8601, UTC
    sha256: str = field(repr=False)
    prefix: str = ""


@dataclass
class McpHttpSettings:
    """`v2c mcp --http`: the port the app starts it on, the rate each token may make requests
    at (a token bucket: `requests_per_minute` on average, `burst` at once; read when the
    server starts) and the tokens that may connect (read again whenever the file changes)."""

    port: int = DEFAULT_HTTP_PORT
    requests_per_minute: int = 120
    burst: int = 30
    tokens: list[HttpToken] = field(default_factory=list)


@dataclass
class Settings:
    models: ModelSettings = field(default_factory=ModelSettings)
    imports: ImportSettings = field(default_factory=ImportSettings)
    export: ExportSettings = field(default_factory=ExportSettings)
    agents: AgentSettings = field(default_factory=AgentSettings)
    sponsorblock: SponsorBlockSettings = field(default_factory=SponsorBlockSettings)
    mcp_http: McpHttpSettings = field(default_factory=McpHttpSettings)
    notion: NotionSettings = field(default_factory=NotionSettings)
    last_library: str | None = None


def settings_path() -> Path:
    return app_paths().config_dir / SETTINGS_FILE


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """Only the fields this version knows: a newer file must not break an older app."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__} must be a JSON object, not {type(data).__name__}")
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def _list(value: Any, name: str = "servers") -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise TypeError(f"{name} must be a JSON list, not {type(value).__name__}")
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


def _whole(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TypeError(f"mcp_http.{name} must be a whole number from {low} to {high}")
    return value


def _http_tokens(value: Any) -> list[HttpToken]:
    tokens = [HttpToken(**_known(HttpToken, t)) for t in _list(value, "mcp_http.tokens")]
    for token in tokens:
        texts = (token.name, token.created, token.sha256, token.prefix)
        if not all(isinstance(text, str) for text in texts):
            raise TypeError("each of mcp_http.tokens needs a name, created and sha256 (text)")
    return tokens


def _mcp_http_settings(data: dict[str, Any]) -> McpHttpSettings:
    http = McpHttpSettings(**_known(McpHttpSettings, data))
    return McpHttpSettings(
        port=_whole(http.port, "port", 0, 65535),
        requests_per_minute=_whole(http.requests_per_minute, "requests_per_minute", 1, 100_000),
        burst=_whole(http.burst, "burst", 1, 100_000),
        tokens=_http_tokens(http.tokens),
    )


def _sponsorblock_settings(data: dict[str, Any]) -> SponsorBlockSettings:
    sponsorblock = SponsorBlockSettings(**_known(SponsorBlockSettings, data))
    if not isinstance(sponsorblock.skip_in_player, bool):
        raise TypeError("sponsorblock.skip_in_player must be true or false")
    server = sponsorblock.server
    if not isinstance(server, str) or not server.startswith(("http://", "https://")):
        raise TypeError("sponsorblock.server must be an http:// or https:// address")
    return sponsorblock


def _notion_settings(data: dict[str, Any]) -> NotionSettings:
    notion = NotionSettings(**_known(NotionSettings, data))
    for name in ("token_env", "parent_page", "api_url"):
        if not isinstance(getattr(notion, name), str):
            raise TypeError(f"notion.{name} must be a string")
    if notion.token is not None and not isinstance(notion.token, str):
        raise TypeError("notion.token must be a string")
    if not notion.api_url.startswith(("http://", "https://")):
        raise TypeError("notion.api_url must be an http:// or https:// address")
    return notion


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
        sponsorblock=_sponsorblock_settings(data.get("sponsorblock") or {}),
        mcp_http=_mcp_http_settings(data.get("mcp_http") or {}),
        notion=_notion_settings(data.get("notion") or {}),
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
    """Write atomically (temp file + rename) so a crash never leaves half a settings file.

    The MCP HTTP tokens are the ones in the file, whatever `settings` holds: only
    `save_http_tokens` changes them (see the module docstring)."""
    path = path or settings_path()
    return _write(
        replace(settings, mcp_http=replace(settings.mcp_http, tokens=_saved_tokens(path))), path
    )


def save_http_tokens(tokens: list[HttpToken], path: Path | None = None) -> Path:
    """Replace the MCP HTTP tokens in the settings file, keeping every other setting."""
    path = path or settings_path()
    settings = load_settings(path)
    return _write(replace(settings, mcp_http=replace(settings.mcp_http, tokens=list(tokens))), path)


def _saved_tokens(path: Path) -> list[HttpToken]:
    """The tokens the file holds now; none when there is no readable file."""
    try:
        return load_settings(path).mcp_http.tokens
    except V2CError:
        return []


def _write(settings: Settings, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".settings-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(asdict(settings), handle, indent=2)
        handle.write("\n")
    os.chmod(tmp, 0o600)  # may hold an API key
    os.replace(tmp, path)
    return path
