"""Triple-pattern and SPARQL semantics on a real store (no broker): on disk, or with
``TG_TEST_STORE=server`` on the test's ``oxigraph serve``."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.support.sparql_server import store_backend
from tests.support.store import (
    CAT,
    DOC,
    EDGE_FOX,
    FOX,
    document,
    handle_of,
    labels,
    msg,
    quad_count,
    written,
)
from trustgraph_base.errors import ServiceError, WireError
from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    PROV,
    RDFS,
    TG,
    agent_call_triples,
    agent_final_triples,
    agent_iteration_triples,
    agent_observation_triples,
    agent_session_triples,
    graph_rag_question_triples,
    uris,
)
from trustgraph_base.rdf.terms import (
    IriTerm,
    LiteralTerm,
    Triple,
    TripleTerm,
    blank,
    iri,
    lit,
    quoted,
)
from trustgraph_base.schema.store import (
    SparqlBinding,
    SparqlQueryRequest,
    TriplePattern,
    TriplesQueryRequest,
    TriplesQueryResponse,
)
from trustgraph_base.wire import decode, encode
from trustgraph_flow.store.core.backend import Handle, QuadStore
from trustgraph_flow.store.core.convert import from_ox, quad_of, to_ox, triple_of
from trustgraph_flow.store.service.state import checked
from trustgraph_flow.store.service.writer import write_batch
from trustgraph_flow.store.views.query import sparql, triples_query


@pytest.fixture
def store(tmp_path: Path) -> QuadStore:
    return handle_of(written(tmp_path / "store", [msg(document() + labels())])).store


def test_terms_round_trip() -> None:
    for term in (
        iri("urn:a"),
        LiteralTerm(v="5", dt=TG.query.i),
        LiteralTerm(v="hi", ln="en"),
        LiteralTerm(v="plain"),
        quoted(*EDGE_FOX),
        quoted(iri("urn:a"), iri("urn:p"), quoted(*EDGE_FOX)),
    ):
        assert from_ox(to_ox(term)) == term
    for t in document()[:5]:
        assert triple_of(quad_of(t)) == t


def test_graph_selection(store: QuadStore) -> None:
    def count(g: str | None) -> int:
        return len(triples_query(store, TriplesQueryRequest(s=iri(FOX), g=g)).triples)

    assert count("") == 1  # the label, in the default graph
    assert count("urn:graph:source") == 0
    assert count(None) == 1  # missing g: the default graph (TrustGraph's reading)
    assert count("*") == 1
    in_source = triples_query(store, TriplesQueryRequest(s=iri(DOC), g="urn:graph:source")).triples
    assert in_source and all(t.g == "urn:graph:source" for t in in_source)
    everywhere = triples_query(store, TriplesQueryRequest(s=iri(DOC), g="*")).triples
    assert everywhere == in_source
    assert triples_query(store, TriplesQueryRequest(s=iri(DOC))).triples == []
    assert triples_query(store, TriplesQueryRequest(p=RDFS.label, g="")).triples[0].g is None


def test_quoted_triple_object_pattern_and_limit(store: QuadStore) -> None:
    found = triples_query(
        store, TriplesQueryRequest(p=TG.contains, o=quoted(*EDGE_FOX), g="*")
    ).triples
    assert [t.s for t in found] == [iri(f"{DOC}/p1/c0/subgraph")]
    assert isinstance(found[0].o, TripleTerm)
    assert len(triples_query(store, TriplesQueryRequest(p=TG.contains, g="*")).triples) == 2
    assert (
        len(triples_query(store, TriplesQueryRequest(p=TG.contains, limit=1, g="*")).triples) == 1
    )
    assert triples_query(None, TriplesQueryRequest(p=TG.contains, g="*")).triples == []


def test_several_patterns_in_one_request_answer_in_pattern_order(store: QuadStore) -> None:
    def one(**pattern: object) -> list[Triple]:
        return triples_query(store, TriplesQueryRequest(g="*", limit=1, **pattern)).triples

    patterns = [
        TriplePattern(s=iri(CAT), p=RDFS.label),
        TriplePattern(p=TG.contains),  # two matches: the limit holds per pattern
        TriplePattern(s=iri("urn:nothing")),
        TriplePattern(s=iri(FOX), p=RDFS.label),
    ]
    both = triples_query(store, TriplesQueryRequest(g="*", limit=1, patterns=patterns)).triples
    expected = [t for p in patterns for t in one(s=p.s, p=p.p, o=p.o)]
    assert both == expected and [t.o for t in (both[0], both[2])] == [
        LiteralTerm(v="cat"),
        LiteralTerm(v="fox"),
    ]
    with pytest.raises(ServiceError, match="either s/p/o or patterns"):
        triples_query(store, TriplesQueryRequest(s=iri(CAT), patterns=patterns))


def test_a_distinct_request_leaves_out_what_an_earlier_pattern_matched(store: QuadStore) -> None:
    """GraphRAG's hop: an edge between two of its nodes matches both ends' patterns."""
    patterns = [
        TriplePattern(s=iri(CAT)),
        TriplePattern(p=RDFS.label),  # the cat's label again, and the fox's
        TriplePattern(s=iri(FOX), p=RDFS.label),  # the fox's again
        TriplePattern(p=RDFS.label, g=""),  # in the default graph: seen, all
        TriplePattern(p=TG.contains, g="*"),
    ]
    full = triples_query(store, TriplesQueryRequest(g="*", patterns=patterns)).triples
    once = triples_query(store, TriplesQueryRequest(g="*", patterns=patterns, distinct=True))
    earliest = list({(t.s, t.p, t.o, t.g): t for t in reversed(full)}.values())[::-1]
    assert once.triples == [t for t in full if any(t is e for e in earliest)]
    assert len(once.triples) == len(set(once.triples)) < len(full)
    assert {t.g for t in once.triples} == {t.g for t in full}  # a graph's triple is its own
    # ``limit`` counts a pattern's matches, then the repeats go: not the next label instead
    label = TriplePattern(p=RDFS.label)
    twice = TriplesQueryRequest(g="*", limit=1, patterns=[label, label], distinct=True)
    first = triples_query(store, TriplesQueryRequest(g="*", limit=1, p=RDFS.label)).triples
    assert len(first) == 1 and triples_query(store, twice).triples == first


def test_a_pattern_may_name_its_own_graph_and_limit(store: QuadStore) -> None:
    source = "urn:graph:source"
    patterns = [
        TriplePattern(s=iri(CAT), p=RDFS.label),  # the request's graph: the default one
        TriplePattern(p=TG.contains),  # none in the default graph
        TriplePattern(p=TG.contains, g=source, limit=2),  # its own graph and limit
        TriplePattern(p=TG.contains, g="*"),  # every graph, the request's limit
        TriplePattern(s=iri(FOX), p=RDFS.label, g=""),  # the default graph, said
    ]
    found = triples_query(store, TriplesQueryRequest(limit=1, patterns=patterns)).triples
    contains = triples_query(store, TriplesQueryRequest(p=TG.contains, g=source)).triples
    assert len(contains) == 2
    assert len(found) == 5 and found[3] in contains  # one of them: the backend's order
    assert [*found[:3], found[4]] == [
        Triple(s=iri(CAT), p=RDFS.label, o=LiteralTerm(v="cat")),
        *contains,
        Triple(s=iri(FOX), p=RDFS.label, o=LiteralTerm(v="fox")),
    ]
    assert all(t.g == source for t in found[1:4]) and found[0].g is None
    with pytest.raises(ServiceError, match="bad graph name 'urn:a b'"):
        triples_query(
            store, TriplesQueryRequest(patterns=[TriplePattern(p=TG.contains, g="urn:a b")])
        )
    with pytest.raises(ValueError, match="limit"):
        TriplePattern(p=TG.contains, limit=0)


def test_a_reply_is_sent_as_its_size_check_encoded_it(store: QuadStore) -> None:
    resp = checked(triples_query(store, TriplesQueryRequest(p=TG.contains, g="*")))
    sent = encode(resp)
    assert encode(resp) is sent  # kept: not serialised a second time to be sent
    assert sent == resp.model_dump_json(by_alias=True, exclude_none=True).encode()


def test_a_reply_asked_as_nquads_holds_the_same_triples(tmp_path: Path) -> None:
    """GraphRAG's requests (``nquads``): the store writes the matches as text, the caller
    reads them back; every kind of term, in the same order, as the JSON form gives them."""
    tricky = LiteralTerm(v='say "hi"\\n\nnext\r\tend é \u2028 \x0c')
    kept = [
        Triple(s=iri("urn:a"), p=iri("urn:p"), o=tricky, g="urn:g"),
        Triple(
            s=iri("urn:a"),
            p=iri("urn:p"),
            o=quoted(blank("b1"), iri("urn:y"), lit("1", lang="en-GB")),
        ),
        Triple(
            s=iri("urn:a"),
            p=iri("urn:q"),
            o=lit("2.5", dt="http://www.w3.org/2001/XMLSchema#decimal"),
        ),
        Triple(s=blank("b2"), p=iri("urn:p"), o=iri("urn:a"), g="urn:g"),
        Triple(s=iri("urn:c"), p=iri("urn:p"), o=blank("b2")),
    ]
    store = handle_of(written(tmp_path / "store", [msg(kept, "k")])).store
    patterns = [
        TriplePattern(p=iri("urn:p")),
        TriplePattern(s=iri("urn:a")),
        TriplePattern(p=iri("urn:q")),
    ]
    asked = TriplesQueryRequest(g="*", patterns=patterns, distinct=True)
    as_json = decode(TriplesQueryResponse, encode(checked(triples_query(store, asked))))
    text = checked(triples_query(store, asked.model_copy(update={"nquads": True})))
    as_text = decode(TriplesQueryResponse, encode(text))
    assert text.nquads is not None and text.nquads.count("\n") == len(as_json.triples) == 5
    assert as_text.triples == as_json.triples and as_text.nquads is None
    assert tricky in {t.o for t in as_text.triples} and blank("b2") in {
        t.s for t in as_text.triples
    }
    nothing = triples_query(store, TriplesQueryRequest(s=iri("urn:none"), nquads=True))
    assert decode(TriplesQueryResponse, encode(nothing)).triples == []
    both = '{"response":[{"s":{"t":"i","i":"urn:a"},"p":{"t":"i","i":"urn:b"},"o":{"t":"i","i":"urn:c"}}],"nquads":""}'
    with pytest.raises(WireError, match="'response' or 'nquads', not both"):
        decode(TriplesQueryResponse, both)
    with pytest.raises(WireError, match="nquads: "):
        decode(
            TriplesQueryResponse,
            '{"nquads":"<urn:a> <urn:b> \\"x\\"^^<http://www.w3.org/2001/XMLSchema#integer> .\\n"}',
        )


def test_follow_adds_what_a_second_request_from_the_matches_would(tmp_path: Path) -> None:
    """GraphRAG's evidence: the spans stating an edge, then each span's facts, in one request."""
    edge, source = quoted(iri("urn:x"), iri("urn:y"), iri("urn:z")), "urn:graph:source"
    spans = [
        Triple(s=iri(f"urn:span{n}"), p=p, o=o, g=source)
        for n in (1, 2)
        for p, o in (
            (TG.edge, edge),
            (TG.quote, lit(f"quote {n}")),
            (PROV.wasDerivedFrom, iri("urn:c")),
        )
    ]
    kept = [*spans, *(Triple(s=iri(f"urn:s{n}"), p=iri("urn:p"), o=lit(n)) for n in range(63))]
    store = handle_of(written(tmp_path / "store", [msg(kept, "kept")])).store
    first = TriplesQueryRequest(
        g=source, patterns=[TriplePattern(p=TG.edge, o=edge)], distinct=True
    )
    matches = triples_query(store, first).triples
    facts = (TG.quote, TG.located, PROV.wasDerivedFrom)
    then = [TriplePattern(s=t.s, p=p) for t in matches for p in facts]
    second = triples_query(store, first.model_copy(update={"patterns": then})).triples
    both = triples_query(store, first.model_copy(update={"follow": list(facts)})).triples
    assert len(matches) == 2 and len(second) == 4 and both == [*matches, *second]
    absent = [TriplePattern(s=iri(f"urn:s{n}"), p=TG.edge) for n in range(2)]
    none = TriplesQueryRequest(patterns=absent, follow=[TG.contains] * 16, limit=1000)
    assert triples_query(store, none).triples == []  # no subject matched: nothing to follow
    wide = TriplesQueryRequest(p=iri("urn:p"), follow=[RDFS.label] * 16, limit=1000)
    with pytest.raises(ServiceError, match=r"follow asks 1008 patterns \(63 subjects x 16"):
        triples_query(store, wide)
    assert len(triples_query(store, wide.model_copy(update={"limit": 62})).triples) == 62


def test_sparql_results(store: QuadStore) -> None:
    rows = sparql(
        store, SparqlQueryRequest(query=f"SELECT ?l WHERE {{ <{CAT}> <{RDFS.label.i}> ?l }}")
    )
    assert rows.query_type == "select" and rows.variables == ["l"]
    assert rows.bindings == [SparqlBinding(values=[LiteralTerm(v="cat")])]
    ask = sparql(
        store,
        SparqlQueryRequest(
            query="ASK { GRAPH <urn:graph:source> { ?sg <https://trustgraph.ai/ns/contains> ?t FILTER(isTRIPLE(?t)) } }"
        ),
    )
    assert ask.query_type == "ask" and ask.ask_result is True
    built = sparql(
        store,
        SparqlQueryRequest(
            query=f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o FILTER(?s = <{FOX}>) }}"
        ),
    )
    assert built.query_type == "construct" and built.triples[0].s == IriTerm(i=FOX)
    assert sparql(store, SparqlQueryRequest(query=f"DESCRIBE <{FOX}>")).query_type == "describe"


@pytest.mark.parametrize(
    "text",
    [
        "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
        "PREFIX x: <urn:x#>\n# note\nDELETE WHERE { ?s ?p ?o }",
        "DROP ALL",
        "LOAD <http://example.com/data.ttl>",
    ],
)
def test_sparql_updates_refused(store: QuadStore, text: str) -> None:
    with pytest.raises(ServiceError) as err:
        sparql(store, SparqlQueryRequest(query=text))
    assert err.value.type == "sparql-update-refused"
    assert next(store.quads_for_pattern(None, None, None, None), None) is not None


def test_sparql_syntax_error_names_position(store: QuadStore) -> None:
    with pytest.raises(ServiceError) as err:
        sparql(store, SparqlQueryRequest(query="SELECT * WHERE {\n  ?s ?p }"))
    assert err.value.type == "sparql-syntax" and "2:" in err.value.message
    with pytest.raises(ServiceError) as err:
        sparql(None, SparqlQueryRequest(query="SELEC *"))
    assert err.value.type == "sparql-syntax" and "error at 1:" in err.value.message


def test_sparql_service_refused(store: QuadStore) -> None:
    assert (
        sparql(store, SparqlQueryRequest(query='SELECT * { ?s ?p "SERVICE" }')).query_type
        == "select"
    )
    prefixed = "PREFIX service: <urn:s#> SELECT * { ?s service:SERVICE ?o }"
    assert sparql(store, SparqlQueryRequest(query=prefixed)).query_type == "select"
    with pytest.raises(ServiceError) as err:
        sparql(
            store,
            SparqlQueryRequest(query="SELECT * { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }"),
        )
    assert err.value.type == "sparql-service-refused"


def test_both_write_paths_store_the_same_terms(tmp_path: Path) -> None:
    tricky = LiteralTerm(v='say "hi"\\n\nnext\r\tend é')
    plain = [
        Triple(s=iri("urn:a"), p=iri("urn:p"), o=tricky, g="urn:g"),
        Triple(
            s=iri("urn:a"),
            p=iri("urn:p"),
            o=quoted(iri("urn:x"), iri("urn:y"), LiteralTerm(v="1", ln="en-GB")),
        ),
        Triple(
            s=iri("urn:a"),
            p=iri("urn:q"),
            o=LiteralTerm(v="2.5", dt="http://www.w3.org/2001/XMLSchema#decimal"),
        ),
    ]
    with_blank = [*plain, Triple(s=blank("b1"), p=iri("urn:p"), o=iri("urn:a"))]
    stores = store_backend(tmp_path)
    write_batch(stores, [msg(plain, "n", user="nq"), msg(with_blank, "b", user="ext")])
    write_batch(
        stores, [msg(with_blank, "b", user="ext")]
    )  # redelivery keeps the blank node's label
    fast, slow = handle_of(stores, "nq"), handle_of(stores, "ext")

    def read(st: Handle) -> list[str]:
        return sorted(str(q) for q in st.store.quads_for_pattern(None, None, None, None))

    assert quad_count(slow) == 4 and set(read(fast)) < set(read(slow))
    assert [
        triple_of(q).o
        for q in fast.store.quads_for_pattern(None, None, None, ox.NamedNode("urn:g"))
    ] == [tricky]


def test_sparql_computed_ill_typed_literal_is_an_error(store: QuadStore) -> None:
    query = (
        "SELECT ?x WHERE { BIND(STRDT('abc', <http://www.w3.org/2001/XMLSchema#integer>) AS ?x) }"
    )
    with pytest.raises(ServiceError) as err:
        sparql(store, SparqlQueryRequest(query=query))
    assert (
        err.value.type == "sparql-result"
        and "'abc' is not a valid xsd:integer" in err.value.message
    )


def test_what_derives_from_an_agent_step_comes_in_run_order(tmp_path: Path) -> None:
    # TrustGraph's tg-show-explain-trace walks a trace by these links and shows what it finds
    # in the order the query answers: a step's calls and observation, then the next step, the
    # conclusion last — whatever order the store keeps them in.
    a = uris.agent_session_uri("order")
    i = [uris.agent_iteration_uri(a, n) for n in range(1, 12)]
    sub = uris.graph_rag_question_uri("order-sub")
    triples = agent_session_triples(a, "q", "2026-01-01T00:00:00Z")
    triples += graph_rag_question_triples(sub, "q", "2026-01-01T00:00:00Z", i[0])
    triples += agent_iteration_triples(i[0], a, "t", "kq", {}, "o")
    for n in range(1, 11):  # i2 … i11 each from i1: an agent that kept going back to step 1
        triples += agent_iteration_triples(i[n], i[0], "t", "kq", {}, "o")
    triples += agent_observation_triples(uris.agent_observation_uri(i[0]), i[0])
    triples += agent_call_triples(uris.agent_call_uri(i[0], 2), i[0], "kq", {}, "o")
    triples += agent_call_triples(uris.agent_call_uri(i[0], 1), i[0], "kq", {}, "o")
    triples += agent_final_triples(uris.agent_final_uri(a), i[0], "done")
    handle = handle_of(written(tmp_path / "store", [msg(triples)]))
    req = TriplesQueryRequest(p=iri(PROV.wasDerivedFrom.i), o=iri(i[0]), g=GRAPH_RETRIEVAL)
    found = [t.s.i for t in triples_query(handle.store, req).triples if isinstance(t.s, IriTerm)]
    c1, c2 = uris.agent_call_uri(i[0], 1), uris.agent_call_uri(i[0], 2)
    assert found == [
        sub,
        c1,
        uris.agent_observation_uri(c1),
        c2,
        uris.agent_observation_uri(c2),
        uris.agent_observation_uri(i[0]),
        *i[1:],  # i2 before i10: by number
        uris.agent_final_uri(a),
    ]
    limited = triples_query(handle.store, req.model_copy(update={"limit": 2})).triples
    assert [t.s for t in limited] == [iri(sub), iri(c1)]
