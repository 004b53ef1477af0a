"""The offline extractor on text written for this test (not the samples it was tuned on):
no junk edges from prose, passive sentences and Markdown bullet facts read."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges

PROSE = (
    "Ada Lovelace was born in London in 1815. She worked with Charles Babbage before she "
    "wrote her notes. Babbage lived in Marylebone for most of his life. The first published "
    "algorithm was written by Ada Lovelace. London around 1840 was the largest city in the "
    "world. Lovelace studied mathematics while she lived in Surrey."
)
MARKDOWN = """## Rivers of Europe

- The Danube flows through Budapest
- **Vienna** lies on the Danube
+ The old bridge was designed by Peter Parler
3. Prague is the capital of Czechia
> Lisbon is the capital of Portugal
"""
PREPOSITIONS = {
    "around",
    "about",
    "near",
    "before",
    "after",
    "during",
    "in",
    "on",
    "at",
    "by",
    "of",
    "with",
    "for",
    "from",
    "to",
    "since",
    "until",
    "over",
    "under",
}
CLAUSE_WORDS = {"before", "after", "when", "while", "because", "until", "and", "or", "but"}


def triples(text: str) -> list[tuple[str, str, str]]:
    return [(e.s, e.p, e.o) for e in extract_edges(text)]


def test_prose_gives_clean_edges_and_no_junk() -> None:
    found = triples(PROSE)
    assert ("Ada Lovelace", "was born in", "London") in found
    assert ("Babbage", "lived in", "Marylebone") in found
    assert ("Ada Lovelace", "worked with", "Charles Babbage") in found
    assert ("Lovelace", "studied", "mathematics") in found  # the clause after it is not the object
    assert not any(s == "London" and p.split()[0] == "around" for s, p, _ in found)
    for s, p, o in found:
        assert p.split()[0] not in PREPOSITIONS, (s, p, o)
        assert o.split()[-1].lower() not in CLAUSE_WORDS, (s, p, o)


def test_a_passive_sentence_with_a_lower_case_subject_is_read_as_its_agents_act() -> None:
    assert ("Ada Lovelace", "wrote", "first published algorithm") in triples(PROSE)
    assert ("Peter Parler", "designed", "old bridge") in triples(MARKDOWN)


def test_markdown_bullets_and_quotes_are_facts_and_markup_is_not_text() -> None:
    found = triples(MARKDOWN)
    assert ("Danube", "flows through", "Budapest") in found
    assert ("Vienna", "lies on", "Danube") in found
    assert ("Prague", "is the capital of", "Czechia") in found
    assert ("Lisbon", "is the capital of", "Portugal") in found
    assert not any(ch in s + p + o for s, p, o in found for ch in "*#>-+")
    assert not any(s.startswith("Rivers") for s, _, _ in found)  # a heading states nothing
