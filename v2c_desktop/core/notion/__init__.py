"""Export to Notion: a page per video (its details, chapters and transcript with timestamp
links that play) under a page the user chose, through the Notion API with the user's token.

`blocks.py` turns a video into Notion blocks within the API's limits, `client.py` speaks the
API (retries, typed errors, the token never in a log or an error), `service.py` remembers the
page made for each video so exporting again does not duplicate it."""
