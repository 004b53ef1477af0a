"""The extractor's validation of LLM output and the facts it derives."""

from __future__ import annotations

import json

import pytest

from trustgraph_base.provenance import RDFS
from trustgraph_base.provenance.uris import entity_uri, relation_uri
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm
from trustgraph_flow.extracted_triples import edge_triples
from trustgraph_flow.extraction import PROMPT, BadOutput, ExtractedEdge, parse_edges


def test_valid_answer_with_fences_and_duplicates() -> None:
    edge = {"s": "Paris", "p": "capital of", "o": "France", "o_literal": False}
    answer = (
        "```json\n"
        + json.dumps(
            [edge, edge, {"s": " Eiffel  Tower", "p": "height", "o": "330 m", "o_literal": True}]
        )
        + "\n```"
    )
    edges = parse_edges(answer)
    assert edges == [
        ExtractedEdge(s="Paris", p="capital of", o="France"),
        ExtractedEdge(s="Eiffel Tower", p="height", o="330 m", o_literal=True),
    ]
    assert parse_edges("[]") == []


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("Sure! Paris is the capital.", "not JSON"),
        ('{"s": "a", "p": "b", "o": "c"}', "not an edge list"),
        ('[{"s": "a", "p": "b"}]', "not an edge list"),
        ('[{"s": "  ", "p": "b", "o": "c"}]', "not an edge list"),
        ('[{"s": 1, "p": "b", "o": "c"}]', "not an edge list"),
    ],
)
def test_malformed_answers_are_refused(answer: str, why: str) -> None:
    with pytest.raises(BadOutput, match=why):
        parse_edges(answer)


def test_too_many_edges_is_refused() -> None:
    many = json.dumps([{"s": f"a{i}", "p": "b", "o": "c"} for i in range(5)])
    with pytest.raises(BadOutput, match="limit 4"):
        parse_edges(many, max_edges=4)


def test_facts_are_in_the_default_graph_with_labels() -> None:
    edges = [
        ExtractedEdge(s="Paris", p="capital of", o="France"),
        ExtractedEdge(s="Eiffel Tower", p="built in", o="1889", o_literal=True),
    ]
    facts, quoted = edge_triples(edges)
    paris, france = IriTerm(i=entity_uri("Paris")), IriTerm(i=entity_uri("France"))
    capital = IriTerm(i=relation_uri("capital of"))
    assert all(t.g is None for t in facts)
    spo = {(t.s, t.p, t.o) for t in facts}
    assert (paris, capital, france) in spo
    assert (paris, RDFS.label, LiteralTerm(v="Paris")) in spo
    assert (capital, RDFS.label, LiteralTerm(v="capital of")) in spo
    tower = IriTerm(i=entity_uri("Eiffel Tower"))
    assert (tower, IriTerm(i=relation_uri("built in")), LiteralTerm(v="1889")) in spo
    assert not any(t.s == IriTerm(i=entity_uri("1889")) for t in facts), "a literal gets no entity"
    assert quoted[0] == (paris, capital, france)
    assert (
        len(facts) == 2 + 5
    )  # two facts, five labels (Paris, capital of, France, tower, built in)


def test_prompt_renders_the_text() -> None:
    rendered = PROMPT.format(text="Paris is the capital of France.")
    assert rendered.rstrip().endswith("Paris is the capital of France.")
    assert '"o_literal"' in rendered
