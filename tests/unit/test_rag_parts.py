"""Pure parts of GraphRAG and DocumentRAG: selection parsing, labels, trace identity, costs, CLI."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from trustgraph_base.errors import ServiceError, WireError
from trustgraph_base.provenance import RDFS, TG
from trustgraph_base.rdf.terms import LiteralTerm, Triple, iri, lit
from trustgraph_base.schema import DocumentRagRequest, GraphRagRequest
from trustgraph_base.schema.rag import RagRequest
from trustgraph_base.wire import decode
from trustgraph_flow.document_rag.prompt import render_prompt
from trustgraph_flow.graph_rag.select import (
    NO_REASON,
    MalformedSelection,
    answer_variables,
    parse_selection,
    render_select,
    select_variables,
)
from trustgraph_flow.graph_rag.subgraph import Subgraph
from trustgraph_flow.rag_common import Cost, no_data_error, trace_identity

FOX, DOG, JUMPS = (
    iri("urn:trustgraph:entity:fox"),
    iri("urn:x:dog"),
    iri("urn:trustgraph:rel:jumps_over"),
)


def graph() -> Subgraph:
    g = Subgraph()
    g.add(Triple(s=FOX, p=RDFS.label, o=lit("Fox")))
    g.add(Triple(s=FOX, p=JUMPS, o=DOG))
    g.add(Triple(s=FOX, p=JUMPS, o=DOG))  # repeated: kept once
    g.add(Triple(s=DOG, p=iri("urn:x:colour"), o=lit("brown")))
    return g


def test_subgraph_keeps_edges_once_and_labels_apart() -> None:
    g = graph()
    assert len(g.edges) == 2
    assert [g.label(t) for t in (FOX, JUMPS, DOG, lit("brown"))] == [
        "Fox",
        "jumps over",
        "dog",
        "brown",
    ]


def test_select_prompt_names_every_edge_by_id_and_label() -> None:
    variables = select_variables("what does the fox do?", graph(), 3)
    assert variables["edges"][0] == {"id": "e1", "s": "Fox", "p": "jumps over", "o": "dog"}
    assert variables["max"] == 3
    assert "e2: dog | colour | brown" in render_select(variables)
    facts = answer_variables(
        "q", graph(), parse_selection('[{"id": "e1", "reasoning": "r"}]', graph(), 5)
    )
    assert facts == {"question": "q", "edges": [{"s": "Fox", "p": "jumps over", "o": "dog"}]}


def test_selection_ignores_unknown_and_repeated_ids_and_keeps_order() -> None:
    text = json.dumps(
        [
            {"id": "e9", "reasoning": "?"},
            {"id": "e2", "reasoning": "colour"},
            {"id": "e2"},
            {"id": "e1"},
        ]
    )
    chosen = parse_selection(text, graph(), 10)
    assert [(e.o, e.reasoning) for e in chosen] == [(lit("brown"), "colour"), (DOG, NO_REASON)]
    assert len(parse_selection(text, graph(), 1)) == 1


def test_selection_drops_edges_that_name_nothing() -> None:
    # "it" and "I’ve" as a subject or an entity object, a year alone as a subject: junk,
    # whoever extracted it, even when the LLM picks it. A year as a value is a fact.
    g = graph()
    it, ive, year = iri("urn:trustgraph:entity:it"), iri("urn:x:ive"), iri("urn:x:1998")
    g.add(Triple(s=ive, p=RDFS.label, o=lit("I’ve")))
    for s, o in ((it, DOG), (FOX, ive), (year, DOG), (FOX, lit("1998"))):
        g.add(Triple(s=s, p=JUMPS, o=o))
    picks = json.dumps([{"id": f"e{n}"} for n in range(1, 7)])
    chosen = parse_selection(picks, g, 10)
    assert [(e.s, e.o) for e in chosen] == [(FOX, DOG), (DOG, lit("brown")), (FOX, lit("1998"))]


@pytest.mark.parametrize(
    "text",
    [
        '```json\n[{"id": "e1", "reasoning": "x"}]\n```',
        '{"edges": [{"id": "e1", "reasoning": "x"}]}',
    ],
)
def test_selection_tolerates_fences_and_a_wrapper(text: str) -> None:
    assert parse_selection(text, graph(), 5)[0].s == FOX


@pytest.mark.parametrize(
    "text", ["not json", '{"id": "e1"}', '["e1"]', "42", '[{"reasoning": "x"}]']
)
def test_malformed_selection_is_refused(text: str) -> None:
    with pytest.raises(MalformedSelection):
        parse_selection(text, graph(), 5)


def test_trace_identity_uses_the_callers_id_and_time() -> None:
    req = GraphRagRequest(query="q", session_id="abc-1", started_at="2026-01-01T00:00:00Z")
    uri, started = trace_identity(req, lambda s: "urn:trustgraph:question:" + s)
    assert (uri, started) == ("urn:trustgraph:question:abc-1", "2026-01-01T00:00:00Z")
    fresh, now = trace_identity(GraphRagRequest(query="q"), lambda s: "urn:q:" + s)
    assert len(fresh) == len("urn:q:") + 36 and now.endswith("Z")


@pytest.mark.parametrize(
    "fields",
    [
        {"session_id": "has space"},
        {"session_id": "../etc"},
        {"parent_uri": "not an iri"},
    ],
)
def test_trace_identity_refuses_bad_caller_values(fields: dict[str, str]) -> None:
    with pytest.raises(ServiceError) as err:
        trace_identity(DocumentRagRequest(query="q", **fields), lambda s: "urn:d:" + s)
    assert err.value.type == "bad-request"


@pytest.mark.parametrize("model", [DocumentRagRequest, GraphRagRequest])
def test_a_bad_started_at_is_refused_when_the_request_is_read(model: type[RagRequest]) -> None:
    """The time is checked by its field type, so the service answers bad-request before
    anything is written (the same check, and words, as the agent's)."""
    frame = json.dumps({"query": "q", "started_at": "yesterday"}).encode()
    with pytest.raises(WireError, match=r"^started_at: bad started_at 'yesterday': use e\.g\."):
        decode(model, frame)


def test_cost_adds_calls_and_becomes_metrics() -> None:
    cost = Cost()
    cost.add("m1", 10, 2, 5.0)
    cost.add("m2", 3, 1, 2.5)
    got = {t.p.i: t.o for t in cost.triples("urn:x:stage")}
    assert got[TG.llmModel.i] == lit("m1")
    values = {p: o.v for p, o in got.items() if isinstance(o, LiteralTerm)}
    assert (values[TG.inToken.i], values[TG.outToken.i]) == ("13", "3")
    assert values[TG.llmDurationMs.i] == "8"  # 7.5 ms, whole (the reference's form)
    searched = {
        t.p.i: t.o for t in Cost("h-384", latency_ms=1.25, embedding=True).triples("urn:x:s")
    }
    assert searched == {TG.embeddingModel.i: lit("h-384"), TG.latencyMs.i: searched[TG.latencyMs.i]}
    assert searched[TG.latencyMs.i].v == "1.25"  # type: ignore[union-attr]


def test_no_data_error_names_the_collection_and_the_next_step() -> None:
    err = no_data_error(DocumentRagRequest(query="q", user="bob", collection="c1"))
    assert err.type == "no-data"
    assert err.message == (
        "collection 'c1' of user 'bob' has no documents; load some with tg-load-document"
    )


def test_document_prompt_numbers_the_excerpts() -> None:
    prompt = render_prompt("why?", ["first text", "second text"])
    assert "[1] first text" in prompt and "[2] second text" in prompt
    assert prompt.endswith("Question: why?\n\nAnswer:")


def commands() -> list[click.Command]:
    from trustgraph_cli.invoke_document_rag import main as docs
    from trustgraph_cli.invoke_graph_rag import main as graph_cmd

    return [graph_cmd, docs]


@pytest.mark.parametrize("command", commands(), ids=["graph-rag", "document-rag"])
def test_usage_errors_exit_2(command: click.Command) -> None:
    runner = CliRunner()
    assert runner.invoke(command, []).exit_code == 2
    empty = runner.invoke(command, ["-q", "  "])
    assert empty.exit_code == 2 and "question is empty" in empty.output
    too_many = "--max-path-length" if "graph" in (command.help or "") else "--doc-limit"
    assert runner.invoke(command, ["-q", "x", too_many, "999"]).exit_code == 2
