"""Thumbnails: downloaded once from a local HTTP server, then read from disk; failures are
remembered; an image beside the local file wins; no network beyond 127.0.0.1."""

from __future__ import annotations

import asyncio
import struct
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from v2c_desktop.core.domain.videos import Video
from v2c_desktop.core.thumbnails import Thumbnails, image_beside


def png(width: int = 4, height: int = 3) -> bytes:
    """A real (grey) PNG image, made without any imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", header),
            chunk(b"IDAT", zlib.compress(rows)),
            chunk(b"IEND", b""),
        ]
    )


class ImageServer:
    """Serves /thumb.png, an HTML page at /page and 404 elsewhere; counts the requests."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests.append(self.path)
                if self.path.startswith("/thumb.png"):
                    body, kind, status = png(), "image/png", 200
                elif self.path == "/page":
                    body, kind, status = b"<html>consent</html>", "text/html", 200
                else:
                    body, kind, status = b"no", "text/plain", 404
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server() -> Iterator[ImageServer]:
    serving = ImageServer()
    yield serving
    serving.close()


def video(**fields: str) -> Video:
    return Video(id="youtube:abc", title="A talk", platform="youtube", native_id="abc", **fields)


def fetch(thumbnails: Thumbnails, *videos: Video) -> list[str]:
    async def go() -> list[str]:
        try:
            return list(await asyncio.gather(*(thumbnails.path_for(v) for v in videos)))
        finally:
            await thumbnails.aclose()

    return asyncio.run(go())


def test_a_thumbnail_is_downloaded_once_then_read_from_disk(
    server: ImageServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    talk = video(thumbnail_url=server.url("/thumb.png"))
    first, again = fetch(Thumbnails(cache), talk, talk)  # asked twice at once: one download
    assert first == again and Path(first).parent == cache and first.endswith(".png")
    assert Path(first).read_bytes() == png()
    assert server.requests == ["/thumb.png"]
    (later,) = fetch(Thumbnails(cache), talk)  # the next session, offline or not
    assert later == first and server.requests == ["/thumb.png"]
    assert not list(cache.glob(".part-*"))


def test_a_failed_download_is_not_tried_again_for_a_while(
    server: ImageServer, tmp_path: Path
) -> None:
    now = [0.0]
    thumbnails = Thumbnails(tmp_path / "cache", retry_after=60, clock=lambda: now[0])
    missing, page = (
        video(thumbnail_url=server.url("/gone")),
        video(thumbnail_url=server.url("/page")),
    )

    async def go() -> list[str]:
        try:
            out = [await thumbnails.path_for(missing), await thumbnails.path_for(page)]
            out += [await thumbnails.path_for(missing), await thumbnails.path_for(page)]
            assert server.requests == ["/gone", "/page"]  # remembered: no second try
            now[0] = 61.0
            out.append(await thumbnails.path_for(missing))
            return out
        finally:
            await thumbnails.aclose()

    assert asyncio.run(go()) == ["", "", "", "", ""]
    assert server.requests == ["/gone", "/page", "/gone"]
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_no_url_or_a_local_address_scheme_gives_the_placeholder(tmp_path: Path) -> None:
    assert fetch(Thumbnails(tmp_path), video(), video(thumbnail_url="file:///etc/passwd")) == [
        "",
        "",
    ]


def test_an_image_beside_the_local_file_comes_first(server: ImageServer, tmp_path: Path) -> None:
    folder = tmp_path / "downloads"
    folder.mkdir()
    (folder / "talk.mp4").write_bytes(b"")
    (folder / "talk.en.vtt").write_text("WEBVTT\n")
    (folder / "talk.webp").write_bytes(b"RIFF")
    assert image_beside(str(folder / "talk.en.vtt")) == str(folder / "talk.webp")
    assert image_beside(str(folder / "talk.mp4")) == str(folder / "talk.webp")
    assert image_beside(str(folder / "other.mp4")) == ""
    assert image_beside("") == ""
    talk = video(source_path=str(folder / "talk.en.vtt"), thumbnail_url=server.url("/thumb.png"))
    assert fetch(Thumbnails(tmp_path / "cache"), talk) == [str(folder / "talk.webp")]
    assert server.requests == []


def write_video(path: Path, colour: tuple[int, int, int], seconds: int = 4) -> Path:
    """A real H.264 (or MPEG-4) file of one colour, encoded with PyAV."""
    import av
    import numpy as np

    with av.open(str(path), "w") as out:
        stream = out.add_stream("mpeg4", rate=10)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        picture = np.zeros((48, 64, 3), dtype=np.uint8)
        picture[:, :] = colour
        for _ in range(seconds * 10):
            frame = av.VideoFrame.from_ndarray(picture, format="rgb24")
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path


def ppm_pixel(path: str) -> tuple[int, int, int, int, int]:
    """(width, height, r, g, b) of the PPM's middle pixel."""
    data = Path(path).read_bytes()
    magic, size, depth, body = data.split(b"\n", 3)
    width, height = (int(n) for n in size.split())
    assert magic == b"P6" and depth == b"255" and len(body) == width * height * 3
    at = ((height // 2) * width + width // 2) * 3
    return width, height, body[at], body[at + 1], body[at + 2]


def test_a_local_video_without_a_picture_gets_a_frame_of_itself(tmp_path: Path) -> None:
    media = write_video(tmp_path / "talk.mp4", (200, 30, 30))
    thumbs = Thumbnails(tmp_path / "cache")
    (first,) = fetch(thumbs, video(source_path=str(media)))
    width, height, red, green, blue = ppm_pixel(first)
    assert (width, height) == (320, 240)  # scaled to the thumbnail width, aspect kept
    assert red > 150 and green < 80 and blue < 80  # the video's own colour
    assert fetch(thumbs, video(source_path=str(media))) == [first]  # cached by path and mtime
    write_video(media, (30, 30, 200))  # the file changed: a new frame
    (again,) = fetch(thumbs, video(source_path=str(media)))
    assert again != first and ppm_pixel(again)[4] > 150


def test_audio_or_a_broken_file_has_no_frame(tmp_path: Path) -> None:
    import wave

    audio = tmp_path / "talk.wav"
    with wave.open(str(audio), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(4000)
        out.writeframes(b"\x80" * 4000)
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00\x00\x00\x18ftypmp42 not really a video")
    thumbs = Thumbnails(tmp_path / "cache")
    assert fetch(thumbs, video(source_path=str(audio)), video(source_path=str(broken))) == ["", ""]
