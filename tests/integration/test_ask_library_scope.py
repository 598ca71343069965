"""Asking the whole library: said explicitly (`AskRequest.library`), saved as such in the
chat, and followed up over the library as it is then; an empty scope stays an error."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import corpus_path
from tests.integration.test_ask import BAYES, BITCOIN, collect, open_api, run
from v2c_desktop.core.ask.events import AskDone, AskError, AskMeta, AskRequest

GRADIENT = "transcripts/3blue1brown/2017_gradient-descent/captions.en.srt"


def test_the_whole_library_is_asked_only_when_asked_for(tmp_path: Path) -> None:
    async def go() -> None:
        api = await open_api(tmp_path, [corpus_path(BITCOIN), corpus_path(BAYES)])
        try:
            videos = {v.id for v in await api.list_videos()}
            question = "How does new evidence change a belief, and what secures a ledger?"
            events = await collect(api, AskRequest(question, library=True, extractive=True))
            meta, done = events[0], events[-1]
            assert isinstance(meta, AskMeta) and isinstance(done, AskDone)
            assert {s.video_id for s in meta.sources} == videos  # both videos were read
            chat = await api.get_chat(done.chat_id)
            assert chat.scope == {"library": True}

            # a follow-up in that chat asks the library as it is now
            await api.add([str(corpus_path(GRADIENT))])
            now = {v.id for v in await api.list_videos()}
            assert len(now) == 3
            follow = await collect(
                api,
                AskRequest("What does gradient descent minimise?", chat_id=done.chat_id),
            )
            assert isinstance(follow[-1], AskDone), follow[-1]
            assert isinstance(follow[0], AskMeta)
            assert {s.video_id for s in follow[0].sources} - videos  # the new video is read

            # no scope at all is still an error, not "everything"
            empty = await collect(api, AskRequest("anything?", extractive=True))
            assert isinstance(empty[-1], AskError) and empty[-1].code == "bad-request"
        finally:
            await api.aclose()

    run(go())
