"""`open_transcript_viewer`: one video's transcript as data, with an MCP Apps viewer for it.

The result is structured (metadata, chapters, `[m:ss]` segments, each with its timestamp
link) and names the viewer, an MCP Apps UI resource (the ext-apps extension, SEP-1865): a
host that renders apps shows `VIEWER_URI`, a self-contained HTML page that receives the
tool result over `postMessage` and lists the lines with links and a filter box. A client
without MCP Apps reads the text fallback: the title line, then `[m:ss] text` lines.

Transcripts are untrusted, so the page inserts every string with `textContent`, never as
markup, and its CSP allows no script, style, font or connection from anywhere.
Segments are capped at `MAX_SEGMENTS` (`truncated` and `totalSegments` say so): a three-hour
video would otherwise fill an agent's context.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.ids import timestamp_url
from v2c_desktop.core.timecode import clock

from ..deps import Deps
from ..inputs import Url
from ..results import imports
from ..schemas import TranscriptViewOut
from ..tooling import add_tool

VIEWER_URI = "ui://v2c/transcript-viewer.html"
#: The MCP Apps mime type of an HTML view (SEP-1865).
APP_MIME_TYPE = "text/html;profile=mcp-app"
MAX_SEGMENTS = 2000

OPEN_TRANSCRIPT_VIEWER = f"""\
Open one video's transcript in a viewer: clients with MCP Apps show an interactive page
(title, channel, chapters and every line with its [m:ss] timestamp link, filterable);
others get the title line and `[m:ss] text` lines. The structured result holds the
metadata, chapters and segments (each with start/end seconds, [m:ss] and link), at most
the first {MAX_SEGMENTS:,} segments (`truncated` and `totalSegments` say when cut). Costs about
12k tokens per hour of video: for reading or citing, get_outline and get_section are
cheaper."""


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def open_transcript_viewer(
        ctx: Context[Any, Any], url: Url
    ) -> Annotated[CallToolResult, TranscriptViewOut]:
        video_id = await deps.video_id(url, ctx=ctx)
        record = await (await deps.core()).get_video(video_id)
        view = transcript_view(record)
        return CallToolResult(
            content=[TextContent(type="text", text=fallback_text(view))],
            structured_content=view,
        )

    add_tool(
        server,
        open_transcript_viewer,
        name="open_transcript_viewer",
        description=OPEN_TRANSCRIPT_VIEWER,
        annotations=imports("Open transcript viewer"),
        meta={"ui": {"resourceUri": VIEWER_URI}},
    )

    @server.resource(
        VIEWER_URI,
        name="transcript_viewer",
        title="Transcript viewer",
        description="The MCP Apps view of open_transcript_viewer: a video's chapters and "
        "[m:ss] lines with timestamp links and a filter box.",
        mime_type=APP_MIME_TYPE,
        meta={"ui": {"prefersBorder": True}},
    )
    def transcript_viewer() -> str:
        return VIEWER_HTML


def transcript_view(record: VideoRecord) -> dict[str, Any]:
    """`open_transcript_viewer`'s structured result (`schemas.TranscriptViewOut`)."""
    video, segments = record.video, record.transcript.segments
    shown = segments[:MAX_SEGMENTS]
    return {
        "videoId": video.id,
        "title": video.title or video.id,
        "channel": video.channel or None,
        "url": video.url or None,
        "duration": clock(record.duration),
        "durationSec": round(record.duration, 3),
        "origin": record.transcript.origin,
        "chapters": [
            {
                "title": c.title,
                "start": round(c.start, 3),
                "time": f"[{clock(c.start)}]",
                "url": timestamp_url(video, c.start) or None,
            }
            for c in record.chapters
        ],
        "segments": [
            {
                "start": round(s.start, 3),
                "end": round(s.end, 3),
                "time": f"[{clock(s.start)}]",
                "url": timestamp_url(video, s.start) or None,
                "text": s.text,
            }
            for s in shown
        ],
        "totalSegments": len(segments),
        "truncated": len(shown) < len(segments),
        "viewer": VIEWER_URI,
    }


def fallback_text(view: dict[str, Any]) -> str:
    """The title line, then one `[m:ss] text` line a segment, then a note when cut."""
    head = view["title"]
    if view["channel"]:
        head += f" - {view['channel']}"
    head += f" ({view['duration']})"
    if view["url"]:
        head += f" {view['url']}"
    lines = [head, ""]
    lines += [f"{s['time']} {s['text']}" for s in view["segments"]]
    if view["truncated"]:
        lines += [
            "",
            f"[Truncated: the first {len(view['segments'])} of {view['totalSegments']} "
            "lines; read the rest with get_section or get_transcript]",
        ]
    return "\n".join(lines)


VIEWER_HTML = """\
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
img-src 'none'; connect-src 'none'; font-src 'none'; form-action 'none'; base-uri 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Transcript viewer</title>
<style>
  body { font: 14px/1.45 system-ui, sans-serif; margin: 0; padding: 12px; }
  h1 { font-size: 1.15em; margin: 0 0 2px; }
  #channel, #status { color: #666; margin: 0 0 8px; }
  #filter { width: 100%; box-sizing: border-box; padding: 6px; margin: 6px 0 10px; }
  ol { margin: 0; padding: 0; list-style: none; }
  #chapters li { display: inline-block; margin: 0 12px 4px 0; }
  #lines li { margin: 0 0 3px; }
  a.t { font-family: ui-monospace, monospace; margin-right: 6px; text-decoration: none; }
  .hidden { display: none; }
</style>
</head>
<body>
<h1 id="title">Transcript</h1>
<p id="channel"></p>
<ol id="chapters"></ol>
<input id="filter" type="search" placeholder="Filter lines" aria-label="Filter lines">
<p id="status">Waiting for the transcript...</p>
<ol id="lines"></ol>
<script>
(function () {
  "use strict";
  var nextId = 1;
  var pending = {};
  var rows = [];

  function send(message) { window.parent.postMessage(message, "*"); }
  function request(method, params) {
    var id = nextId++;
    send({ jsonrpc: "2.0", id: id, method: method, params: params });
    return new Promise(function (resolve) { pending[id] = resolve; });
  }
  function notify(method, params) { send({ jsonrpc: "2.0", method: method, params: params }); }
  function el(tag, text) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function isWeb(url) { return typeof url === "string" && /^(https?|file):/i.test(url); }
  function stamp(time, url) {
    if (!isWeb(url)) { return el("span", time); }
    var link = el("a", time);
    link.className = "t";
    link.href = url;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    link.addEventListener("click", function (event) {
      event.preventDefault();
      request("ui/open-link", { url: url });
    });
    return link;
  }
  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }
  function setStatus(data, shown) {
    var total = data.totalSegments || (data.segments || []).length;
    var text = shown + " of " + (data.segments || []).length + " lines";
    if (data.truncated) { text += " (the first " + data.segments.length + " of " + total + ")"; }
    document.getElementById("status").textContent = text;
  }
  function render(data) {
    if (!data || typeof data !== "object") { return; }
    document.getElementById("title").textContent = data.title || data.videoId || "Transcript";
    var about = [data.channel, data.duration, data.origin].filter(Boolean).join(" \\u00b7 ");
    document.getElementById("channel").textContent = about;
    var chapters = document.getElementById("chapters");
    clear(chapters);
    (data.chapters || []).forEach(function (c) {
      var item = el("li");
      item.appendChild(stamp(c.time, c.url));
      item.appendChild(el("span", c.title));
      chapters.appendChild(item);
    });
    var lines = document.getElementById("lines");
    clear(lines);
    rows = (data.segments || []).map(function (s) {
      var item = el("li");
      item.appendChild(stamp(s.time, s.url));
      item.appendChild(el("span", s.text));
      lines.appendChild(item);
      return { node: item, text: String(s.text || "").toLowerCase() };
    });
    window.v2cData = data;
    applyFilter();
  }
  function applyFilter() {
    var words = document.getElementById("filter").value.toLowerCase().trim();
    var shown = 0;
    rows.forEach(function (row) {
      var hit = !words || row.text.indexOf(words) !== -1;
      row.node.classList.toggle("hidden", !hit);
      if (hit) { shown++; }
    });
    if (window.v2cData) { setStatus(window.v2cData, shown); }
  }
  document.getElementById("filter").addEventListener("input", applyFilter);

  window.addEventListener("message", function (event) {
    if (event.source !== window.parent) { return; }
    var message = event.data;
    if (!message || message.jsonrpc !== "2.0") { return; }
    if (message.id !== undefined && pending[message.id] && !message.method) {
      var resolve = pending[message.id];
      delete pending[message.id];
      resolve(message.result);
      return;
    }
    if (message.method === "ui/notifications/tool-result") {
      var result = message.params || {};
      render(result.structuredContent);
    } else if (message.method === "ui/resource-teardown" && message.id !== undefined) {
      send({ jsonrpc: "2.0", id: message.id, result: {} });
    }
  });

  request("ui/initialize", {
    appInfo: { name: "v2c transcript viewer", version: "1" },
    appCapabilities: {},
    protocolVersion: "2026-01-26"
  }).then(function () { notify("ui/notifications/initialized", {}); });
})();
</script>
</body>
</html>
"""
