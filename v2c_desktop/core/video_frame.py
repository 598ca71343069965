"""A still frame of a local video, for its thumbnail, decoded with PyAV.

PyAV carries FFmpeg inside its wheels, so any format the player knows decodes without a
system ffmpeg. The frame is taken a tenth of the way in (past a black opening), scaled to
`WIDTH` pixels wide and written as a binary PPM, which every Qt build reads and which needs
no image library here (`thumbnails.py` caches it). A file with no video stream (audio, a
broken file) has no frame.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

log = logging.getLogger(__name__)

WIDTH = 320
#: A frame is sought at this share of the duration (and at most this many seconds in).
AT_SHARE = 0.1
AT_MOST_S = 60.0


def frame_key(media: Path) -> str | None:
    """The name a still of `media` is cached under (its path, size and mtime), or None."""
    try:
        info = media.stat()
    except OSError:
        return None
    key = f"{media.resolve()}|{info.st_size}|{info.st_mtime_ns}".encode()
    return f"frame-{hashlib.sha256(key).hexdigest()[:32]}.ppm"


def frame_ppm(media: Path) -> bytes | None:
    """A still of `media` as a binary PPM, or None when it has no video frame to give."""
    try:
        picture = _decode(media)
    except Exception as exc:  # any decoder failure is "no frame", never an error to show
        log.info("no frame from %s: %s", media.name, exc)
        return None
    if picture is None:
        return None
    width, height, rgb = picture
    return f"P6\n{width} {height}\n255\n".encode("ascii") + rgb


def _decode(media: Path) -> tuple[int, int, bytes] | None:
    import av  # PyAV: loaded only when a local video needs a thumbnail

    with av.open(str(media)) as container:
        if not container.streams.video:
            return None
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        duration = float(container.duration or 0) / av.time_base
        at = min(duration * AT_SHARE, AT_MOST_S)
        if at > 0:
            container.seek(int(at * av.time_base), any_frame=False, backward=True)
        for frame in container.decode(stream):
            height = max(2, round(frame.height * WIDTH / max(frame.width, 1)) // 2 * 2)
            scaled = frame.reformat(width=WIDTH, height=height, format="rgb24")
            plane = scaled.planes[0]
            row = WIDTH * 3
            data = bytes(plane)
            rgb = b"".join(
                data[y * plane.line_size : y * plane.line_size + row] for y in range(height)
            )
            return WIDTH, height, rgb
    return None
