"""A still frame of a local video, for its thumbnail, decoded with PyAV.

PyAV carries FFmpeg inside its wheels, so any format the player knows decodes without a
system ffmpeg. The frame is taken a tenth of the way in (past a black opening), scaled to
`WIDTH` pixels wide and written as a binary PPM, which every Qt build reads and which needs
no image library here. A file with no video stream (audio, a broken file) has no frame: "".
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

WIDTH = 320
#: A frame is sought at this share of the duration (and at most this many seconds in).
AT_SHARE = 0.1
AT_MOST_S = 60.0


def frame_of(media: Path, cache_dir: Path) -> str:
    """The path of a cached still of `media` (made on first use), or "" when none can be."""
    try:
        info = media.stat()
    except OSError:
        return ""
    key = f"{media.resolve()}|{info.st_size}|{info.st_mtime_ns}".encode()
    target = cache_dir / f"frame-{hashlib.sha256(key).hexdigest()[:32]}.ppm"
    if target.is_file():
        return str(target)
    try:
        picture = _decode(media)
    except Exception as exc:  # any decoder failure is "no frame", never an error to show
        log.info("no frame from %s: %s", media.name, exc)
        return ""
    if picture is None:
        return ""
    width, height, rgb = picture
    cache_dir.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=cache_dir, prefix=".frame-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(f"P6\n{width} {height}\n255\n".encode("ascii"))
            out.write(rgb)
        os.replace(temporary, target)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        return ""
    return str(target)


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
