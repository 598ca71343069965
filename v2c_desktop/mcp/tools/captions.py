"""`list_caption_languages` and `choose_caption_track`: a video's other caption tracks.

An import reads the best track by itself (the creator's captions in the preferred language
first); these let an agent see the others (language, the site's name, creator or auto, and
the languages YouTube machine-translates into) and replace the transcript with one.

`choose_caption_track` asks the user when it is not told which track: through MCP
elicitation, a form with the tracks (and the translation languages) to pick from. The
user's pick is their confirmation, so it may also replace a transcript of their own (a
subtitle file, speech-to-text); a track the agent names itself may not. A client that
cannot ask gets the list back, and calls again with `language` and `kind`.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult
from pydantic import BaseModel, Field, ValidationError, create_model

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.captions import KIND_WORDS, CaptionChoice, CaptionTracks
from v2c_desktop.core.domain.imports import REPLACE_LOCAL, ImportOutcome
from v2c_desktop.core.domain.videos import VideoRecord
from v2c_desktop.core.errors import V2CError, bad_request, no_transcript
from v2c_desktop.core.render.common import text_tokens
from v2c_desktop.core.settings import AgentSettings

from ..deps import Deps
from ..results import reads, replaces, structured_result
from ..schemas import CaptionChoiceOut, CaptionLanguagesOut
from ..tooling import Progress, add_tool

log = logging.getLogger(__name__)

#: The progress stage of a web import (`core.importers.web.importer`).
WEB_IMPORT_STAGE = "web-import"

LIST_CAPTION_LANGUAGES = """\
A video's caption tracks, before choosing one: each track's language code, the site's name
for it, whether the creator made it or speech recognition did (kind creator or auto), and
whether the site can machine-translate it; the translation languages (YouTube offers about
150); and which track the library's transcript came from. Reads the video's page, imports
nothing. About 200 tokens plus 25 per track and 15 per translation language."""

CHOOSE_CAPTION_TRACK = """\
Replace a video's transcript with another of its caption tracks (a video not in the library
is imported with it). Without language, the user picks the track in a form your client
shows (MCP elicitation); a client that cannot show forms gets the track list back (status
needs-choice): call again with language and kind from it, and translateTo for a machine
translation. Returns the new transcript's origin, language, track, segments and tokens;
when the user declines, nothing changes. A transcript of the user's own (a subtitle file,
speech-to-text) is replaced only by the user's own pick in the form. About 200 tokens."""

CaptionUrl = Annotated[
    str,
    Field(
        description="The video: a URL (YouTube or any site yt-dlp reads), a YouTube id, or "
        "the library id (youtube:aircAruvnKk) or exact title of a video imported from a site."
    ),
]
TrackLanguage = Annotated[
    str | None,
    Field(
        description="The track's language code as list_caption_languages gives it (en, "
        "pt-BR). Leave out to let the user choose the track in a form."
    ),
]
TrackKindIn = Annotated[
    Literal["creator", "auto"] | None,
    Field(
        description="creator: the creator's own captions; auto: speech recognition. Default: "
        "creator when the video has creator captions in that language, else auto."
    ),
]
TranslateTo = Annotated[
    str | None,
    Field(
        description="Have the site machine-translate the track into this language (a code "
        "from translationLanguages); only for a track that is translatable."
    ),
]


def listing_view(listing: CaptionTracks, next_step: str = "") -> dict[str, Any]:
    """`list_caption_languages`' structured result (and `choices` of a needs-choice)."""
    current = listing.current
    current_key = current.key if current else ""
    return {
        "videoId": listing.video_id,
        "title": listing.title,
        "url": listing.url,
        "inLibrary": listing.in_library,
        "current": (
            {
                "language": current.language,
                "kind": current.kind,
                "translateTo": current.translate_to,
            }
            if current
            else None
        ),
        "currentTranscript": listing.current_words,
        "tracks": [
            {
                "language": t.language,
                "name": t.name,
                "kind": t.kind,
                "translatable": t.translatable,
                "current": t.key == current_key,
            }
            for t in listing.tracks
        ],
        "translationLanguages": [
            {"language": t.language, "name": t.name} for t in listing.translations
        ],
        "next": next_step or _next_step(listing),
    }


def _next_step(listing: CaptionTracks) -> str:
    if not listing.tracks:
        return "This video has no caption tracks."
    example = listing.tracks[0]
    return (
        "To use another track, call choose_caption_track with this url and language and "
        f'kind of a track (e.g. {{"language": "{example.language}", "kind": "{example.kind}"}}),'
        " plus translateTo for a machine translation of a translatable track; leave language"
        " out to let the user choose in a form."
    )


def transcript_summary(record: VideoRecord) -> dict[str, Any]:
    transcript = record.transcript
    return {
        "origin": transcript.origin,
        "language": transcript.language,
        "producer": transcript.producer,
        "trackName": transcript.track_name,
        "track": transcript.track,
        "translatedFrom": transcript.translated_from,
        "segments": len(transcript.segments),
        "tokens": text_tokens(transcript.segments),
    }


def can_elicit(ctx: Context[Any, Any]) -> bool:
    """Whether the client declared it can show a form (elicitation in form mode: an empty
    `elicitation` capability means form, as before URL mode existed)."""
    try:
        capabilities = ctx.client_capabilities
    except ValueError:  # no request
        return False
    asked = capabilities.elicitation if capabilities is not None else None
    return asked is not None and (asked.form is not None or asked.url is None)


def _titled(options: list[tuple[str, str]], default: str | None = None) -> dict[str, Any]:
    """A titled single-select enum (`oneOf` of `const` and `title`), as MCP forms take it."""
    extra: dict[str, Any] = {
        "oneOf": [{"const": value, "title": title} for value, title in options]
    }
    if default is not None:
        extra["default"] = default
    return extra


def track_title(listing: CaptionTracks, key: str) -> str:
    track = next(t for t in listing.tracks if t.key == key)
    title = f"{track.name} · {KIND_WORDS[track.kind]} ({track.language})"
    if listing.current is not None and listing.current.key == key:
        title += " · now"
    return title


def choice_form(listing: CaptionTracks) -> type[BaseModel]:
    """The form: the track (the current one preselected) and, when any track can be
    translated, an optional translation language."""
    keys = [t.key for t in listing.tracks]
    current = listing.current.key if listing.current else None
    fields: dict[str, Any] = {
        "track": (
            str,
            Field(
                title="Caption track",
                description="The track the transcript is read from",
                json_schema_extra=_titled(
                    [(k, track_title(listing, k)) for k in keys],
                    current if current in keys else keys[0],
                ),
            ),
        )
    }
    if listing.translations and any(t.translatable for t in listing.tracks):
        targets = [(t.language, f"{t.name} ({t.language})") for t in listing.translations]
        fields["translateTo"] = (
            str | None,
            Field(
                default=None,
                title="Machine-translate into",
                description="Optional: have the site translate a translatable track",
                json_schema_extra=_titled(targets),
            ),
        )
    model: type[BaseModel] = create_model("CaptionTrackChoice", **fields)
    return model


def _form_message(listing: CaptionTracks) -> str:
    now = listing.current_words or "none yet"
    message = (
        f"Which caption track should v2c use for “{listing.title}”? Its transcript now: "
        f"{now}. The track you pick replaces it."
    )
    if listing.users_own:
        message += " That transcript is your own (from a file or speech-to-text)."
    return message


def _choice_from_form(listing: CaptionTracks, data: BaseModel) -> CaptionChoice:
    key = str(getattr(data, "track", "") or "")
    track = next((t for t in listing.tracks if t.key == key), None)
    if track is None:
        raise bad_request(f"the form answered {key!r}, which is none of the video's tracks")
    target = getattr(data, "translateTo", None) or None
    if target and target not in {t.language for t in listing.translations}:
        raise bad_request(f"the form answered {target!r}, which is no translation language")
    return CaptionChoice(track.language, track.kind, target)


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def list_caption_languages(
        url: CaptionUrl,
    ) -> Annotated[CallToolResult, CaptionLanguagesOut]:
        ref = await deps.prepare(url)
        listing = await (await deps.core()).caption_tracks(ref, agent=deps.settings().agents)
        return structured_result(listing_view(listing))

    async def choose_caption_track(
        ctx: Context[Any, Any],
        url: CaptionUrl,
        language: TrackLanguage = None,
        kind: TrackKindIn = None,
        translateTo: TranslateTo = None,
    ) -> Annotated[CallToolResult, CaptionChoiceOut]:
        ref = await deps.prepare(url)
        api = await deps.core()
        agent = deps.settings().agents
        if language:
            choice = CaptionChoice(language.strip(), kind or "creator", translateTo or None)
            if kind is None:  # the creator's track in that language if there is one
                found = (await api.caption_tracks(ref, agent=agent)).find(language)
                if found is not None:
                    choice = CaptionChoice(found.language, found.kind, translateTo or None)
            return await _import(ctx, api, ref, choice, agent, replace_local=False)
        if kind or translateTo:
            raise bad_request(
                "kind and translateTo go with language",
                "pass the track's language too, or leave all three out to let the user choose",
            )
        listing = await api.caption_tracks(ref, agent=agent)
        if not listing.tracks:
            raise no_transcript(
                f"{listing.title} has no caption tracks to choose from",
                "nothing to choose: its transcript (if any) stays as it is",
            )
        if not can_elicit(ctx):
            return _needs_choice(listing, "This client cannot show the user a form")
        try:
            answer = await ctx.elicit(_form_message(listing), choice_form(listing))
        except (MCPError, ValidationError) as error:  # the client refused the request
            log.info("elicitation failed: %s", error)
            return _needs_choice(listing, "The client could not show the user a form")
        except ValueError as error:  # an accepted form whose content does not fit
            raise bad_request(f"the user's answer did not fit the form: {error}") from None
        if answer.action != "accept":
            said = "declined" if answer.action == "decline" else "cancelled"
            if listing.in_library:
                what = f"its transcript is still the one it had ({listing.current_words})"
            else:
                what = "it was not imported"
            return structured_result(
                {
                    "status": said,
                    "message": f"Nothing changed: the user {said} choosing a caption track "
                    f"for {listing.title}, so {what}.",
                    "videoId": listing.video_id,
                    "title": listing.title,
                    "url": listing.url,
                }
            )
        choice = _choice_from_form(listing, answer.data)
        return await _import(ctx, api, ref, choice, agent, replace_local=True)

    add_tool(
        server,
        list_caption_languages,
        name="list_caption_languages",
        description=LIST_CAPTION_LANGUAGES,
        annotations=reads("List caption languages"),
    )
    add_tool(
        server,
        choose_caption_track,
        name="choose_caption_track",
        description=CHOOSE_CAPTION_TRACK,
        annotations=replaces("Choose caption track"),
    )


def _needs_choice(listing: CaptionTracks, why: str) -> CallToolResult:
    example = listing.tracks[0]
    step = (
        f"{why}, so nothing changed. Ask the user which track to use, then call "
        "choose_caption_track again with this url and the track's language and kind "
        f'(e.g. {{"language": "{example.language}", "kind": "{example.kind}"}}), plus '
        "translateTo for a machine translation of a translatable track."
    )
    return structured_result(
        {
            "status": "needs-choice",
            "message": step,
            "videoId": listing.video_id,
            "title": listing.title,
            "url": listing.url,
            "choices": listing_view(listing, step),
        }
    )


async def _import(
    ctx: Context[Any, Any],
    api: CoreAPI,
    ref: str,
    choice: CaptionChoice,
    agent: AgentSettings,
    *,
    replace_local: bool,
) -> CallToolResult:
    reporter = Progress(ctx, 1)
    try:
        outcome = await api.choose_caption_track(
            ref,
            choice,
            agent=agent,
            replace_local=replace_local,
            progress=reporter.listener(0, stage=WEB_IMPORT_STAGE),
        )
    finally:
        await reporter.drain()
    return structured_result(await _outcome_view(api, outcome, choice))


async def _outcome_view(
    api: CoreAPI, outcome: ImportOutcome, choice: CaptionChoice
) -> dict[str, Any]:
    if outcome.status == "failed":  # not raised by the core, but kept an error if it is
        raise outcome.error or V2CError("internal", outcome.reason or "the import failed")
    body: dict[str, Any] = {
        "status": outcome.status,
        "videoId": outcome.video_id,
        "title": outcome.title or None,
    }
    if outcome.status == "skipped":
        if outcome.confirm == REPLACE_LOCAL:
            body["message"] = (
                f"Nothing changed: {outcome.reason}. Only the user can replace it: call "
                "choose_caption_track without language so they choose in a form, or ask them "
                "to choose the track in the v2c app (the video's Caption track…)."
            )
        else:
            body["message"] = f"Nothing changed: {outcome.reason}."
        return body
    assert outcome.video_id
    record = await api.get_video(outcome.video_id)
    body["url"] = record.video.url or None
    body["transcript"] = transcript_summary(record)
    said = outcome.reason or f"now the {choice.words()}"
    body["message"] = f"{said[:1].upper()}{said[1:]}."
    return body
