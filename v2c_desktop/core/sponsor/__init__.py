"""SponsorBlock's skip segments of YouTube videos: fetched by hash prefix, kept in the library.

`client.py` asks SponsorBlock (httpx, through the core's web access), `spans.py` lays the
segments over a transcript (the share each covers; the transcript without them, for briefs),
`service.py` is the service behind `CoreAPI.get_skip_segments`. The types every face shows
are in `core/domain/skips.py`.
"""
