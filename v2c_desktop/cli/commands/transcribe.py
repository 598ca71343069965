"""`v2c transcribe VIDEO [--model ID]`: transcribe a saved video's own media file again
(speech-to-text) and replace its transcript, in one transaction."""

from __future__ import annotations

import argparse

from ..context import open_context
from ..output import StderrProgress, emit_json


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "transcribe",
        parents=[common],
        help="transcribe a saved video's audio again (speech-to-text), replacing its transcript",
        description="Transcribe the local video or audio file of a saved VIDEO with a speech "
        "recogniser (Whisper through faster-whisper, on this computer) and replace its "
        "transcript with the new one. Nothing changes if it fails or is interrupted.",
    )
    p.add_argument("video", metavar="VIDEO", help="video id, file path or exact title")
    p.add_argument(
        "--model",
        metavar="ID",
        help="speech-to-text model: a catalog id (tiny.en) or a folder holding a Whisper "
        "model in CTranslate2 format (default: tiny.en, where installed)",
    )
    p.set_defaults(handler=run)


async def run(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        outcome = await api.transcribe(args.video, model=args.model, progress=StderrProgress())
    if args.json:
        emit_json(outcome.to_dict("cli"))
        return 0
    print(f"{outcome.status} {outcome.video_id}  {outcome.title}")
    if outcome.reason:
        print(f"  {outcome.reason}")
    for warning in outcome.warnings:
        print(f"  warning: {warning}")
    return 0
