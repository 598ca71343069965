"""Where a quote starts or ends inside a sentence, a reader sees `…` (the quote stays verbatim)."""

from __future__ import annotations

import pytest

from v2c_desktop.core.ask.events import with_ellipses
from v2c_desktop.core.ask.matching import quote_cuts

TEXT = "Miners listen for transactions. They build blocks, then broadcast them! Done?"


@pytest.mark.parametrize(
    ("quote", "cuts"),
    [
        ("Miners listen for transactions.", (False, False)),
        ("They build blocks, then broadcast them!", (False, False)),
        ("listen for transactions.", (True, False)),
        ("They build blocks,", (False, True)),
        ("build blocks, then", (True, True)),
        ("Done?", (False, False)),
        ("", (False, False)),
    ],
)
def test_cuts_are_judged_against_the_sentences_of_the_text(
    quote: str, cuts: tuple[bool, bool]
) -> None:
    assert quote_cuts(quote, TEXT) == cuts


def test_lowercase_start_of_a_text_is_a_cut_and_closing_quotes_end_a_sentence() -> None:
    assert quote_cuts("and then it stops", "and then it stops") == (True, True)
    assert quote_cuts("He said “stop.”", "He said “stop.” Then left.") == (False, False)


def test_with_ellipses() -> None:
    assert with_ellipses("a b", True, True) == "…a b…"
    assert with_ellipses("a b", False, True) == "a b…"
    assert with_ellipses("", True, True) == ""
