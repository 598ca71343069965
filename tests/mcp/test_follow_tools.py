"""`refresh_collection`, `watch_collection` and `get_collection`'s watch state, through the
official MCP client over stdio, with the real yt-dlp reading an RSS feed on 127.0.0.1.

The agent creates a collection from the feed (so it follows it), the site publishes a talk,
and a refresh brings in that one only; a collection of hand-picked videos follows nothing,
and its refresh is an `isError` result, the server still serving.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.mcp.harness import McpProcess, allow_agents, error_of, server_env, text_of
from tests.support.feed_site import serve_site
from tests.unit.owner.toys import remove_dir, short_dir


def test_an_agent_follows_a_feed_refreshes_it_and_schedules_it(tmp_path: Path) -> None:
    runtime, home = short_dir(), tmp_path / "home"
    allow_agents(home, [], private_hosts=True)  # the feed is on this machine
    with serve_site(tmp_path / "site") as site:
        server = McpProcess(tmp_path / "library.duckdb", server_env(home, runtime))
        try:
            feed = f"{site.base}/feed.xml"
            created = json.loads(
                server.text("create_collection", {"name": "Island talks", "sources": [feed]})
            )
            assert len(created["summary"]["added"]) == 2
            view = json.loads(server.text("get_collection", {"collection": "island-talks"}))
            assert view["watch"]["sources"] == [feed] and view["pending"] == []
            assert view["watch"]["lastCheck"] is None and view["watch"]["everyHours"] is None

            site.publish("market", "The fish market", "The market opens at six.")
            server.progress.clear()
            result = server.call(
                "refresh_collection", {"collection": "island-talks"}, progress=True
            )
            assert not result.is_error, text_of(result)
            refreshed = json.loads(text_of(result))
            assert refreshed["new"] == 1
            (added,) = refreshed["summary"]["added"]
            assert added["title"].startswith("The fish market")
            assert len(refreshed["summary"]["skipped"]) == 2  # filed, not fetched again
            assert refreshed["watch"]["lastNew"] == 1 and refreshed["watch"]["lastCheck"]
            assert server.progress  # the import's progress reached the client

            watched = json.loads(
                server.text("watch_collection", {"collection": "island-talks", "everyHours": 2})
            )
            assert watched["watch"]["everyHours"] == 2
            assert watched["watch"]["nextCheck"] > watched["watch"]["lastCheck"]
            too_often = server.call(
                "watch_collection", {"collection": "island-talks", "everyHours": 0.01}
            )
            assert too_often.is_error

            server.text("create_collection", {"name": "Hand picked"})
            refused = error_of(server.call("refresh_collection", {"collection": "hand-picked"}))
            assert refused["error"] == "bad-request" and "follows no" in refused["message"]
            view = json.loads(server.text("get_collection", {"collection": "hand-picked"}))
            assert view["watch"] is None  # still serving, and saying it follows nothing
        finally:
            server.close()
            remove_dir(runtime)
    assert not server.junk, server.junk
