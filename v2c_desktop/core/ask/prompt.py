"""The messages an answer is generated from, the follow-up rewrite, and the citation grammar.

The prompt is where grounding starts: the model is told to use only the numbered sources,
to end each factual sentence with `[n]`, to say plainly when the videos do not cover the
question and to answer in the question's language. Transcripts and titles are untrusted
(anyone can upload a video that says "ignore previous instructions"), so every source sits
in one block fenced with a random boundary (`models.fence`), after the instructions, and
the system prompt says never to follow what is inside. Fencing also neutralises them: a
`[2]` or `[Video @ 1:23]` said in a transcript or a title reaches the model as `(2)`, so it
has no marker to copy. An earlier turn that quotes transcripts (an extractive answer) is
fenced with the same boundary; the follow-up rewrite does not see its text at all (the
question before it names the topic), so no transcript reaches that prompt.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from ..models.fence import fence
from ..models.types import ChatMessage
from ..timecode import clock
from .markers import strip_citations
from .matching import normalise_space
from .sources import Source

__all__ = [
    "block_end",
    "build_messages",
    "citation_grammar",
    "rewrite_messages",
    "source_label",
    "strip_citations",
    "system_end",
]

REWRITE_TURNS = 6
REWRITE_TURN_CHARS = 600
QUOTED_TURN = "an earlier answer of this chat: passages quoted from the videos"
QUOTED_PLACEHOLDER = "(passages quoted from the videos, not shown here)"
_BLOCK_END = re.compile(r"<<<END DATA-[0-9a-f]+>>>\n\nQuestion:")


def source_label(source: Source) -> str:
    """`[3] Title @ 1:02-2:15`: the number the model cites and where the passage is."""
    title = normalise_space(source.title) or source.video_id
    return f"[{source.n}] {title} @ {clock(source.start)}-{clock(source.end)}"


def _numbers(sources: Sequence[Source]) -> str:
    numbers = ", ".join(str(s.n) for s in sources)
    if len(sources) > 2 and [s.n for s in sources] == list(range(1, len(sources) + 1)):
        numbers = f"1 to {len(sources)}"
    return numbers


def _system_prompt(sources: Sequence[Source], instruction: str, language_hint: str | None) -> str:
    """The rules. They name no source (the numbers that exist are said beside the sources),
    so with a stable fence they are the same bytes for every question: a local model keeps
    their evaluated state once (`system_end`) instead of reading them for every chat."""
    if sources:
        cite = (
            "End every factual sentence with the number of the source that supports it in "
            "square brackets, like [1]; cite several sources as [1][2]. Only cite numbers of "
            "sources that exist, and use square brackets for nothing else."
        )
    else:
        cite = "There are no sources for this question."
    language = (
        f"Answer in {language_hint}, the language of the question."
        if language_hint
        else "Answer in the language of the question, even when the sources are in another."
    )
    return "\n".join(
        [
            "You answer questions about videos using only the numbered sources given with "
            "the question: excerpts of the videos' transcripts, each with its title and time.",
            "",
            "Rules:",
            "- Use only what the sources say; do not add outside knowledge.",
            f"- {cite}",
            "- If the sources do not cover the question, say plainly that the videos do not "
            "cover it; do not guess.",
            f"- {language}",
            f"- {instruction}",
            "- Be concise.",
        ]
    )


def build_messages(
    question: str,
    sources: Sequence[Source],
    history: Sequence[ChatMessage],
    *,
    language_hint: str | None = None,
    quoted: Collection[int] = (),
    stable: bool = False,
) -> list[ChatMessage]:
    """System rules, the earlier turns (markers stripped), then the sources and the question.

    The sources go in the last user message, next to the question they serve; earlier
    turns keep only their words, because their `[n]` referred to an earlier source list
    (except in a `stable` chat, whose sources are the same in every turn).
    `stable` is for a chat that keeps its sources for all its turns (a local model's): the
    sources then go in the chat's first user message, before any history, with a fence
    boundary derived from them, so the rules and the sources form a prefix that is the same
    bytes in every turn and a local model evaluates only the new turns (see `block_end`).
    `quoted` holds
    the indexes in `history` of turns that quote transcripts (extractive answers): those
    are untrusted text too, fenced with the sources' boundary. `language_hint` names the
    answer's language when the caller knows it ("French").
    """
    block = fence([(source_label(s), s.text) for s in sources], stable=stable)
    messages = [ChatMessage("system", _system_prompt(sources, block.instruction(), language_hint))]
    turns: list[ChatMessage] = []
    for i, turn in enumerate(history):
        if turn.role in ("user", "assistant"):
            if stable and turn.role == "assistant" and i not in quoted:
                # the same sources as when it was written: its [n] still mean them, and its
                # bytes stay those the model generated, which a local model already holds
                text = turn.content.strip()
            else:
                text = strip_citations(turn.content).strip()
            if i in quoted:
                text = block.also([(QUOTED_TURN, text)])
            turns.append(ChatMessage(turn.role, text))
    turns.append(ChatMessage("user", question.strip()))
    first = next(i for i, t in enumerate(turns) if t.role == "user") if stable else -1
    asked = turns[first].content
    header = f"Sources ({_numbers(sources)}):" if sources else "Sources:"
    turns[first] = ChatMessage("user", f"{header}\n{block.text}\n\nQuestion: {asked}")
    return [*messages, *turns]


def system_end(messages: Sequence[ChatMessage]) -> str | None:
    """The text that ends the system rules (their last line): where the prefix every local
    answer shares ends. The rules come first in the prompt, so its first occurrence is
    theirs, whatever a transcript says later."""
    if messages and messages[0].role == "system":
        last = messages[0].content.rstrip().rsplit("\n", 1)[-1]
        return last or None
    return None


def block_end(messages: Sequence[ChatMessage]) -> str | None:
    """The text that ends the prompt's source block, where its reusable prefix ends: the
    block's closing line with what follows it, which makes it unique in the prompt (the
    system prompt names that line too, and a quoted turn ends with it)."""
    for message in messages:
        found = _BLOCK_END.search(message.content)
        if found and message.role == "user":
            return found.group()
    return None


def rewrite_messages(
    history: Sequence[ChatMessage], question: str, quoted: Collection[int] = ()
) -> list[ChatMessage]:
    """A cheap call that turns a follow-up ("how much power does it make?") into one
    standalone search query. Only the last few turns, each cut short, are shown: the query
    needs the topic, not the whole conversation. A turn in `quoted` (indexes in `history`:
    an extractive answer, nothing but transcript quotes) is shown as a placeholder: fenced,
    a tiny model was seen to answer with the fence itself instead of a query."""
    lines = []
    turns = [(i, t) for i, t in enumerate(history) if t.role in ("user", "assistant")]
    for i, turn in turns[-REWRITE_TURNS:]:
        text = normalise_space(strip_citations(turn.content))
        if i in quoted:
            text = QUOTED_PLACEHOLDER
        if len(text) > REWRITE_TURN_CHARS:
            text = text[:REWRITE_TURN_CHARS].rsplit(" ", 1)[0] + " ..."
        lines.append(f"{'User' if turn.role == 'user' else 'Assistant'}: {text}")
    system = (
        "You rewrite the last question of a conversation into one standalone search query "
        "for searching video transcripts. Replace words like 'it', 'he' or 'that' with what "
        "they refer to. Keep the question's language. Reply with the query only: one line, "
        "no explanation, no quotes, no answer."
    )
    conversation = "\n".join(lines) if lines else "(none)"
    user = (
        f"Conversation:\n{conversation}\n\nLast question: {question.strip()}\n\n"
        "Standalone search query:"
    )
    return [ChatMessage("system", system), ChatMessage("user", user)]


def citation_grammar(k: int, *, not_covered: str | None = None) -> str:
    """A llama.cpp GBNF grammar that makes a small model's answer cite every sentence.

    The answer is one or more sentences joined by a space. A sentence is free text without
    `[`, `]`, line breaks or sentence stops, then one or more citations `[n]` (`n` in
    `1..k`), with an optional `.`/`!`/`?` before the citations ("text. [1]", "text.[1]")
    or after them ("text [1]."). Keeping stops out of the text is what makes every
    sentence cite: a model cannot write three sentences and cite only the last. A `.`
    inside the text is allowed only between two digits ("12.5"): a rule letting "." be
    followed by any digit was tried, and SmolLM2 used it to escape the citation by writing
    "Bitcoin.1.2.2.2.7.7.7...". Allowing the stop right before the citation matters as much:
    a small model wants to end with "." and, when it may, then writes the `[n]`.
    No `<` either: a small model imitates the fence lines of a quoted turn in the history
    and would open its answer with `<<<END DATA-...>>>` (seen with SmolLM2).
    Length is left to `max_tokens`. `not_covered`, when given, is an uncited sentence the
    model may answer instead (in the question's language), so it can still say that the
    videos do not cover the question.
    """
    if k < 1 and not_covered is None:
        raise ValueError("a citation grammar needs at least one source")
    answer, rules = "", []
    if k >= 1:
        answer = 'sentence (" " sentence)*'
        rules = [
            'sentence ::= lead piece* (stop " "?)? cite+ stop?',
            "stop ::= [.!?]",
            "lead ::= [^\\[\\]\\n.!?< ] | decimal",
            "piece ::= [^\\[\\]\\n.!?<] | decimal",
            'decimal ::= [0-9] "." [0-9]',
            'cite ::= "[" num "]"',
            "num ::= " + " | ".join(f'"{n}"' for n in range(1, k + 1)),
        ]
    if not_covered is not None:
        literal = not_covered.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
        answer = f'"{literal}"' if k < 1 else f'{answer} | "{literal}"'
    return "\n".join([f"root ::= {answer}", *rules]) + "\n"
