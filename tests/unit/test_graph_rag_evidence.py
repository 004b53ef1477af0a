"""The text a focus edge's claim is checked against: a quote that leans on the sentences
before it (a pronoun or a definite description for its subject) is read with them."""

from __future__ import annotations

from trustgraph_flow.graph_rag.evidence import with_context
from trustgraph_flow.verify.heuristic import check_claim

CHUNK = (
    "# Orla Quist\n\nOrla Quist was born in Bergen in 1858. She studied chemistry at the\n"
    "University of Uppsala.\n\nThe bridge was opened in 1874."
)
CLAIM = "Orla Quist studied chemistry at University of Uppsala."


def test_a_leaning_quote_is_read_with_its_paragraph() -> None:
    quote = "She studied chemistry at the University of Uppsala."
    read = with_context(quote, CHUNK)
    assert read == "Orla Quist was born in Bergen in 1858. " + quote
    # the edge's claim names its subject, which only the sentence before says
    assert not check_claim(CLAIM, [quote]).supported
    assert check_claim(CLAIM, [read]).supported


def test_other_quotes_are_left_as_they_are() -> None:
    assert with_context("Orla Quist was born in Bergen in 1858.", CHUNK).startswith("Orla")
    assert with_context("Orla Quist was born in Bergen in 1858.", CHUNK).count(".") == 1
    # the first sentence of its paragraph: nothing before it to lean on
    assert with_context("The bridge was opened in 1874.", CHUNK) == "The bridge was opened in 1874."
    assert with_context("She left.", "") == "She left."  # not in the chunk (text gone)


def test_a_name_the_extractor_read_from_an_earlier_paragraph_is_given_with_it() -> None:
    chunk = (
        "Walkers visit the Penrith Museum of Clocks in summer.\n\n"
        "The museum was opened by Lord Carr in 1902. It has a cafe."
    )
    quote = "The museum was opened by Lord Carr in 1902."
    claim = "Lord Carr opened Penrith Museum of Clocks."
    labels = ("Lord Carr", "Penrith Museum of Clocks")
    read = with_context(quote, chunk, labels)
    assert read == "Walkers visit the Penrith Museum of Clocks in summer. " + quote
    assert not check_claim(claim, [with_context(quote, chunk)]).supported
    assert check_claim(claim, [read]).supported
    # names the quote has already: nothing added
    assert with_context(quote, chunk, ("Lord Carr",)) == quote
