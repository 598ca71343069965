"""Prompts `brief`, `buyer_guide` and `digest`: how the calling agent turns videos into a
cited document.

Synthesis is the agent's job (it has the better model and the user's context); the server's
job is to say how to do it well: plan reading from token counts instead of pulling every
transcript, read outlines first, cite every claim to the second, count a reupload once, and
say plainly where the sources agree, disagree, or only one source speaks. Prompt arguments
are strings, so `urls` is a comma, space or newline separated list. `digest` drives the
`digest_videos` tool (written by the client's own model when it offers sampling); its
`collection` and `video` arguments complete from the library (`completions.py`).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from .deps import Deps, split_list

CollectionArg = Annotated[
    str, Field(description="A collection id (from list_collections); or give urls instead.")
]
UrlsArg = Annotated[
    str,
    Field(
        description="Videos (URLs, YouTube ids, library ids or file paths) separated by "
        "commas, spaces or newlines; or give a collection instead."
    ),
]
QuestionArg = Annotated[str, Field(description="The question the brief must answer (optional).")]
DigestQuestionArg = Annotated[
    str, Field(description="What the digest should answer (optional: the videos' main points).")
]
VideoArg = Annotated[
    str,
    Field(
        description="One video: its exact title, URL or library id (completions offer the "
        "saved ones); or give a collection instead."
    ),
]
ProductArg = Annotated[
    str, Field(description="The product the guide is about, e.g. 'Toyota Prius (2010-2015)'.")
]

CITATION_RULE = """\
Cite every factual claim inline as [Video title @ m:ss](timestamp link), using the [m:ss]
time of the line that supports it and that video's timestamp URL for the same second (the
transcript header and search hits give the link form). Never cite a time you did not read."""

READING_PLAN = """\
How to read (plan from token counts; speech is about 12k tokens per hour):
1. Get the size of everything first: get_collection (videos with token counts) or get_outline
   for each video (sections with token counts). Do not fetch whole transcripts yet.
2. Whatever fits comfortably in your context, read whole with get_transcript (use maxTokens
   and the next_cursor to page long ones). For the rest, read the outline, then only the
   sections that matter with get_section, and find specific evidence with search_transcript
   (it searches by meaning and keyword; "exact phrases" and -exclusions work).
3. Stop reading once every part of the question is covered by evidence; note what is not."""

EVIDENCE_RULES = """\
Weighing evidence:
- Decompose the answer into claims. An important claim wants two independent videos; a
  claim only one video makes is attributed to it ("according to ...") and marked single-source.
- Reuploads, clips and mirrors of one video are one source, not several.
- First-hand evidence (the person who did, measured or built it) outranks commentary; creator
  captions are more reliable than auto-generated ones (the header says which) - quote auto
  captions with care, they mishear names and numbers.
- Disagreement is content: when videos conflict, cite both sides and say which is better
  supported and why. Note each video's publish date where recency matters.
- If the videos do not cover something the question needs, say so and name what would."""


def _sources(collection: str, urls: str) -> str:
    items = split_list(urls)
    lines = ["Sources:"]
    if collection.strip():
        lines.append(
            f"- collection {collection.strip()} (read v2c://collection/{collection.strip()} "
            "or call get_collection for its videos and token counts)"
        )
    lines.extend(f"- {item}" for item in items)
    if len(lines) == 1:
        lines.append(
            "- none given: ask the user which videos or collection to use, or use "
            "search_transcript over the whole library"
        )
    return "\n".join(lines)


def brief_text(collection: str = "", urls: str = "", question: str = "") -> str:
    ask = question.strip() or "What do these videos establish, and where do they differ?"
    return f"""\
Write a cited research brief from the videos below, answering: {ask}

{_sources(collection, urls)}

{READING_PLAN}

{EVIDENCE_RULES}

{CITATION_RULE}

Shape of the brief (Markdown, tight: the bottom line fits on one screen):
1. Bottom line: the direct answer in two or three sentences, cited.
2. Key findings, grouped by theme, each cited; mark single-source findings.
3. Consensus and disagreement: where the videos agree, where they conflict (both sides cited).
4. Open questions and gaps: what the videos do not settle.
5. Sources: each video used (title, channel, date, link) and what it contributed.
"""


def buyer_guide_text(product: str, collection: str = "", urls: str = "") -> str:
    return f"""\
Write a cited buyer's guide for {product.strip() or "the product"} from the videos below.

{_sources(collection, urls)}

{READING_PLAN}

{EVIDENCE_RULES}

{CITATION_RULE}

Shape of the guide (Markdown):
1. Bottom line: which to buy and which to avoid, in two or three cited sentences.
2. Models and years (or versions): what changed between them.
3. Best and worst years, and why (cited).
4. Known issues: each with symptoms, affected years, typical repair cost, how common it is
   according to the videos (mark single-source reports).
5. Prices: what the videos say a good example costs, each price with the video's publish
   date (prices date fast; say so).
6. Mileage or usage: what is high, what is fine, what to expect at each stage.
7. Inspection checklist: concrete checks before buying, each tied to a cited issue.
8. Sources: each video used (title, channel, date, link).
"""


def digest_text(collection: str = "", video: str = "", question: str = "") -> str:
    args: dict[str, Any] = {}
    if collection.strip():
        args["collection"] = collection.strip()
    if video.strip():
        args["urls"] = [video.strip()]
    if question.strip():
        args["question"] = question.strip()
    if "collection" in args or "urls" in args:
        call = f"Call digest_videos with {json.dumps(args, ensure_ascii=False)}."
    else:
        call = (
            "Ask the user which collection or video to digest (list_collections and "
            "search_transcript help), then call digest_videos with it."
        )
    return f"""\
Make a cited digest of videos{f", answering: {question.strip()}" if question.strip() else ""}.
{call}

- mode "digest": your client's model wrote it through MCP sampling and v2c checked every quote
  against the transcript at its time. Present the Markdown in `digest` as it is, keeping each
  [Video title @ m:ss](link) citation; quotes that did not check out are in `unverified` (they
  are not in the digest): mention them only if asked.
- mode "plan": follow its `instructions`: read each piece with its get_section call, write the
  digest yourself, and check every quote with verify_quotes before you show it.

{CITATION_RULE}
"""


def register(server: MCPServer[Any], deps: Deps) -> None:
    @server.prompt(
        name="brief",
        title="Cited brief",
        description="Instructions for writing a cited brief (summary, findings by theme, "
        "consensus and disagreement, open questions, sources) from a collection or videos.",
    )
    def brief(
        collection: CollectionArg = "", urls: UrlsArg = "", question: QuestionArg = ""
    ) -> str:
        return brief_text(collection, urls, question)

    @server.prompt(
        name="buyer_guide",
        title="Cited buyer's guide",
        description="Instructions for a cited buyer's guide (models and years, best and worst "
        "years, known issues, dated prices, mileage, inspection checklist) from videos.",
    )
    def buyer_guide(product: ProductArg, collection: CollectionArg = "", urls: UrlsArg = "") -> str:
        return buyer_guide_text(product, collection, urls)

    @server.prompt(
        name="digest",
        title="Cited digest",
        description="Drives digest_videos: a cited digest of a collection or a video written "
        "by your own model (MCP sampling), every quote verified; or the plan to write it. "
        "collection and video complete from the library.",
    )
    def digest(
        collection: CollectionArg = "", video: VideoArg = "", question: DigestQuestionArg = ""
    ) -> str:
        return digest_text(collection, video, question)
