"""`v2c add SOURCE... [--collection NAME]`: import videos, playlists, channels, files, folders."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from v2c_desktop.core.domain.imports import REPLACE_WEB, BatchResult
from v2c_desktop.core.progress import Progress

from ..context import open_context
from ..output import StderrProgress, emit_json


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "add",
        parents=[common],
        help="import videos, playlists, channels, subtitle files, folders",
        description="Import each SOURCE: a video, playlist or channel URL; a subtitle file; a "
        "media file with a subtitle file beside it; a folder (e.g. archived with yt-dlp "
        "--write-subs --write-info-json); or a .txt file with one URL per line.",
    )
    p.add_argument("sources", nargs="+", metavar="SOURCE")
    p.add_argument("--collection", metavar="NAME", help="also add the videos to this collection")
    p.add_argument("--refresh", action="store_true", help="import again even if already saved")
    p.add_argument(
        "--replace-web",
        action="store_true",
        help="let a local archive (.info.json with subtitles) replace the transcript of a video "
        "imported from the web; without it such a video is skipped and the web import kept",
    )
    add_web_options(p)
    p.add_argument(
        "--no-transcribe",
        action="store_true",
        help="a media file without a subtitle file fails (no-transcript) instead of having "
        "its speech transcribed on this computer",
    )
    p.add_argument("--stt-model", metavar="ID", help="speech-to-text model (default: tiny.en)")
    p.add_argument(
        "--transcribe-web",
        action="store_true",
        help="a web video without captions: download only its audio with yt-dlp (deleted "
        "afterwards) and transcribe it on this computer; the setting "
        "imports.transcribe_without_captions allows this for every import",
    )
    p.add_argument(
        "--no-index",
        action="store_true",
        help="save only; search indexes the videos on its first run",
    )
    p.set_defaults(handler=run, needs_web=True)


def add_web_options(p: argparse.ArgumentParser) -> None:
    """`--lang`, `--cookies-from-browser`, `--proxy`: for every command that imports from
    the web (read by `context.web_overrides`), so the hints of web errors name flags that
    the command takes."""
    p.add_argument(
        "--lang",
        action="append",
        metavar="LANG",
        help="preferred caption language (repeatable; default: the video's own, then en)",
    )
    p.add_argument(
        "--cookies-from-browser",
        metavar="BROWSER",
        help="let yt-dlp use this browser's cookies (firefox, chrome, ...)",
    )
    p.add_argument("--proxy", metavar="URL", help="HTTP/SOCKS proxy for web imports")


class AddProgress(StderrProgress):
    """Each settled item as a line on stdout (as it happens, also through the owner);
    the rest of the progress on stderr once the work takes over a second."""

    def __init__(self, lines: bool) -> None:
        super().__init__()
        self._lines = lines

    def __call__(self, event: Progress) -> None:
        if event.stage == "settled":
            if self._lines:
                print(event.message, flush=True)
            return
        super().__call__(event)


def print_problems(result: BatchResult) -> None:
    """Failures with their hints, and the warnings of imports that went through.

    Why an item was skipped is already on its own line (`outcome_line`).
    """
    for outcome in result.outcomes:
        if outcome.error is not None:
            print(f"failed: {outcome.source}\n  {outcome.error.code}: {outcome.error.message}")
            if outcome.error.hint:
                print(f"  hint: {outcome.error.hint_for('cli')}")
        elif outcome.confirm == REPLACE_WEB:
            print(f"kept: {outcome.title or outcome.video_id} (imported from the web)")
            again = f"v2c add --replace-web {shlex.quote(outcome.source)}"
            print(f"  hint: to replace its transcript with the local archive's, run `{again}`")
        elif outcome.warnings:
            print(f"warning: {outcome.title or outcome.source}")
            for warning in outcome.warnings:
                print(f"  {warning}")


async def run(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        result = await api.add(
            [str(Path(s).resolve()) if Path(s).exists() else s for s in args.sources],
            collection=args.collection,
            refresh=args.refresh,
            languages=list(args.lang or []),
            progress=AddProgress(lines=not args.json),
            replace_web=args.replace_web,
            transcribe=not args.no_transcribe,
            stt_model=args.stt_model,
            transcribe_web=args.transcribe_web,
        )
    if args.json:
        emit_json(result.to_dict("cli"))
    else:
        print_problems(result)
        print(
            f"added {result.count('added')}, updated {result.count('updated')}, "
            f"skipped {result.count('skipped')}, failed {result.count('failed')}"
            + (f" (collection {result.collection.id})" if result.collection else "")
        )
    return 1 if result.count("failed") else 0
