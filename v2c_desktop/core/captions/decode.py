"""Bytes to text for caption files of unknown origin.

Subtitle files come from everywhere: yt-dlp writes UTF-8, Windows tools write UTF-8 with a
BOM or UTF-16, old SRT files are often cp1252. The order is: a UTF-8 BOM, then a UTF-16 BOM,
then strict UTF-8, then cp1252 as the last resort (it never fails, so junk is caught by
`looks_binary` instead of by a decode error).
"""

from __future__ import annotations

import codecs

_SAMPLE = 8192


def decode_bytes(data: bytes) -> str:
    """Decode caption bytes; never raises."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :].decode("utf-8", errors="replace")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def looks_binary(text: str) -> bool:
    """True for decoded junk: NUL bytes, or many control / undecodable characters.

    Real caption text has only tabs and line breaks among the C0 controls.
    """
    sample = text[:_SAMPLE]
    if "\x00" in sample:
        return True
    bad = sum(1 for ch in sample if (ch < " " and ch not in "\t\n\r\f\v") or ch in "\ufffd\x7f")
    return bad > max(4, len(sample) // 50)
