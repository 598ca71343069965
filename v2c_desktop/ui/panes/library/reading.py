"""A transcript as a person reads it: caption fragments merged into sentences, sentences
into paragraphs, and every piece still tied to the caption line it came from.

Captions are cut for the screen ("Clive Wearing was playing the piano" / "alone in his
room."), so one line per caption reads like a telegram. Here the lines are joined and cut
again where a reader expects it: a sentence ends at `.`, `?`, `!` or `…` (not after "Dr."
or a lone initial), at a long pause, or once it runs very long (auto captions have no
punctuation); a paragraph ends at a chapter start, at a pause, or after a few sentences.

A caption line may hold the end of one sentence and the start of the next, so a sentence is
a list of pieces, each naming its segment: the view lights the very line being played and
every sentence's link seeks to the start of the line it begins in.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from v2c_desktop.core.domain.videos import Chapter, Segment
from v2c_desktop.core.render.common import PARAGRAPH_PAUSE, chapter_index, one_line

SENTENCE_PAUSE = 1.5  # seconds of silence that end a sentence without punctuation
MAX_SENTENCE_CHARS = 280  # auto captions: cut a sentence that never ends
PARAGRAPH_SENTENCES = 5
PARAGRAPH_CHARS = 700
_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)")
_NOT_AN_END = frozenset({"mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc", "e.g", "i.e", "no"})
_NEW_SPEAKER = (">>", "- ", "– ", "— ")


@dataclass(frozen=True, slots=True)
class Piece:
    """Text of segment `segment` (a whole caption line or a part of one)."""

    segment: int
    text: str


@dataclass(slots=True)
class Sentence:
    start: float  # the start of the caption line it begins in
    pieces: list[Piece] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(p.text for p in self.pieces)


@dataclass(slots=True)
class Paragraph:
    sentences: list[Sentence] = field(default_factory=list)

    @property
    def start(self) -> float:
        return self.sentences[0].start

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)


def split_sentences(text: str) -> list[tuple[str, bool]]:
    """`text` cut after each sentence end: (part, ends a sentence) in order."""
    parts: list[tuple[str, bool]] = []
    pos = 0
    for match in _END.finditer(text):
        word = text[: match.start()].rsplit(" ", 1)[-1].casefold()
        if match.group(0) == "." and (word in _NOT_AN_END or (len(word) == 1 and word.isalpha())):
            continue
        part = text[pos : match.end()].strip()
        if part:
            parts.append((part, True))
        pos = match.end()
    rest = text[pos:].strip()
    if rest:
        parts.append((rest, False))
    return parts


def paragraphs(segments: Sequence[Segment], chapters: Sequence[Chapter] = ()) -> list[Paragraph]:
    """The transcript's paragraphs; every non-blank segment's text is in exactly one of
    them, in order, as one or more pieces."""
    out: list[Paragraph] = []
    paragraph = Paragraph()
    sentence: Sentence | None = None
    chars = 0
    previous: Segment | None = None
    previous_chapter: int | None = None

    def close_sentence() -> None:
        nonlocal sentence, chars
        if sentence is not None and sentence.pieces:
            paragraph.sentences.append(sentence)
            chars += len(sentence.text) + 1
        sentence = None

    def close_paragraph() -> None:
        nonlocal paragraph, chars
        close_sentence()
        if paragraph.sentences:
            out.append(paragraph)
        paragraph, chars = Paragraph(), 0

    for index, segment in enumerate(segments):
        text = one_line(segment.text)
        if not text:
            continue
        chapter = chapter_index(chapters, segment.start) if chapters else None
        if previous is not None:
            pause = segment.start - previous.end
            if (
                chapter != previous_chapter
                or pause >= PARAGRAPH_PAUSE
                or text.startswith(_NEW_SPEAKER)
            ):
                close_paragraph()
            elif pause >= SENTENCE_PAUSE:
                close_sentence()
        for part, ends in split_sentences(text):
            if sentence is not None and len(sentence.text) >= MAX_SENTENCE_CHARS:
                close_sentence()
            if sentence is None:
                if len(paragraph.sentences) >= PARAGRAPH_SENTENCES or chars >= PARAGRAPH_CHARS:
                    close_paragraph()
                sentence = Sentence(segment.start)
            sentence.pieces.append(Piece(index, part))
            if ends:
                close_sentence()
        previous, previous_chapter = segment, chapter
    close_paragraph()
    return out
