"""A video's comments: read from its site through yt-dlp, kept with the video.

`normalise.py` turns yt-dlp's `comments` list into `Comment`s (plain text, replies after
the comment they answer), `service.py` is the service behind `CoreAPI.get_comments`. The
types every face shows are in `core/domain/comments.py`; the table is `store/comments.py`.
"""
