"""The extractor's validation of LLM output and the facts it derives."""

from __future__ import annotations

import json

import pytest

from trustgraph_base.provenance import GRAPH_SOURCE, RDFS, TG
from trustgraph_base.provenance.common import integer_literal
from trustgraph_base.provenance.evidence import edge_span_triples
from trustgraph_base.provenance.uris import entity_uri, relation_uri
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, lit, term_key
from trustgraph_base.rdf.terms import quoted as quoted_term
from trustgraph_base.schema import ChunkText, Metadata
from trustgraph_flow.extracted_triples import edge_spans, edge_triples
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


def test_each_edge_records_its_sentence_or_says_it_is_unlocated() -> None:
    text = "Capitals.\nParis is the capital\nof France. Rome is in Italy."
    chunk = ChunkText(
        metadata=Metadata(id="c", user="u", collection="c"),
        document="urn:trustgraph:doc:d",
        page="urn:trustgraph:doc:d/p2",
        chunk="urn:trustgraph:doc:d/p2/c1",
        index=1,
        char_offset=400,
        char_length=len(text),
        text=text,
    )
    edges = [
        ExtractedEdge(
            s="Paris", p="capital of", o="France", quote="Paris is the capital of France."
        ),
        ExtractedEdge(s="Rome", p="in", o="Italy", quote="Rome lies in Italy."),  # reworded
        ExtractedEdge(s="Rome", p="capital of", o="Italy"),  # no quote given
    ]
    _, quoted = edge_triples(edges)
    located, reworded = edge_spans(chunk, edges, quoted)
    assert (located.offset, located.length) == (10, len("Paris is the capital\nof France."))
    assert located.quote == "Paris is the capital\nof France." == text[10:41]
    assert located.page_offset == 410
    assert (reworded.offset, reworded.length, reworded.page_offset) == (None, None, None)
    assert reworded.quote == "Rome lies in Italy."
    sub = chunk.chunk + "/subgraph"
    triples = {
        (term_key(t.s).strip("<>"), t.p.i, term_key(t.o))
        for t in edge_span_triples(sub, chunk.chunk, [located, reworded])
    }
    assert (sub + "/s1", TG.pageCharOffset.i, term_key(integer_literal(410))) in triples
    assert (sub + "/s1", TG.edge.i, term_key(quoted_term(*quoted[0]))) in triples
    assert (sub + "/s2", TG.located.i, term_key(lit(False))) in triples
    assert not any(s == sub + "/s2" and p == TG.charOffset.i for s, p, _ in triples)
    assert all(t.g == GRAPH_SOURCE for t in edge_span_triples(sub, chunk.chunk, [located]))
