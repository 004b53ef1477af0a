"""D1: SPARQL is checked by a parser: SERVICE and updates refused whatever the escaping."""

from __future__ import annotations

import pytest

from trustgraph_base.errors import ServiceError
from trustgraph_flow.store.sparql.check import check_query

URL = "<http://127.0.0.1:9/internal?secret=1>"


@pytest.mark.parametrize(
    "text",
    [
        f'SELECT * WHERE {{ BIND("x\\\\" AS ?z) SERVICE {URL} {{ ?x ?p ?o }} BIND("y" AS ?w) }}',
        f"SELECT * WHERE {{ BIND('x\\\\' AS ?z) SERVICE {URL} {{ ?x ?p ?o }} BIND('y' AS ?w) }}",
        f'SELECT * WHERE {{ BIND("""x\\"""" AS ?z) SERVICE {URL} {{ ?x ?p ?o }} }}',
        f"SELECT * WHERE {{ sErViCe SILENT {URL} {{ ?x ?p ?o }} }}",
        f"SELECT * WHERE {{ ?s ?p ?o # comment\n SERVICE {URL} {{ ?x ?p ?o }} }}",
        f"SELECT * WHERE {{ ?s ?p <<( ?a ?b ?c )>> . SERVICE {URL} {{ ?x ?p ?o }} }}",
        f"SELECT * WHERE {{ {{ SELECT ?x {{ SERVICE {URL} {{ ?x ?p ?o }} }} }} }}",
        f"ASK {{ FILTER EXISTS {{ SERVICE {URL} {{ ?x ?p ?o }} }} }}",
        f"CONSTRUCT {{ ?x ?p ?o }} WHERE {{ OPTIONAL {{ SERVICE {URL} {{ ?x ?p ?o }} }} }}",
        "SELECT * WHERE { SERVICE ?endpoint { ?x ?p ?o } }",
    ],
)
def test_service_refused_whatever_the_escaping(text: str) -> None:
    with pytest.raises(ServiceError) as err:
        check_query(text)
    assert err.value.type == "sparql-service-refused"


def test_unicode_escapes_that_parsers_read_differently_are_refused() -> None:
    # rdflib expands \\u0022 to a quote before parsing; pyoxigraph keeps it inside the string,
    # so rdflib alone would read this SERVICE as part of one long string.
    hidden = f'SELECT * WHERE {{ BIND("\\u0022" AS ?a) SERVICE {URL} {{ ?s ?p ?o }} BIND("\\u0022" AS ?b) }}'
    with pytest.raises(ServiceError) as err:
        check_query(hidden)
    assert (
        err.value.type == "sparql-unsupported" and "write the character itself" in err.value.message
    )


@pytest.mark.parametrize(
    "text",
    [
        "INSERT DATA { <urn:a> <urn:b> <urn:c> }",
        "SELECT * {} ; DROP ALL",
        "  # c\nPREFIX x: <urn:x#> WITH <urn:g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
    ],
)
def test_updates_refused(text: str) -> None:
    with pytest.raises(ServiceError) as err:
        check_query(text)
    assert err.value.type in ("sparql-update-refused", "sparql-syntax")


@pytest.mark.parametrize(
    "text",
    [
        "SELECT ?sg WHERE { GRAPH <urn:graph:source> { ?sg <https://trustgraph.ai/ns/contains> <<( <urn:a> <urn:b> <urn:c> )>> } }",
        "SELECT ?o WHERE { ?s ?p ?o FILTER(isTRIPLE(?o)) }",
        "SELECT ?x WHERE { ?s ?p ?t BIND(SUBJECT(?t) AS ?x) BIND(TRIPLE(?s, ?p, ?x) AS ?y) }",
        "SELECT * WHERE { ?s ?p << ?a ?b ?c >> }",
        'SELECT * WHERE { ?s ?p "SERVICE" . ?service ?p ?o }',
        "PREFIX ex: <http://ex/> SELECT (COUNT(*) AS ?n) WHERE { ?s ex:SERVICE ?o } GROUP BY ?s",
        "DESCRIBE <urn:x>",
    ],
)
def test_read_queries_pass(text: str) -> None:
    check_query(text)


def test_deeply_nested_text_is_refused_not_crashed() -> None:
    with pytest.raises(ServiceError) as err:
        check_query("SELECT * WHERE " + "{" * 5000 + "}" * 5000)
    assert err.value.type == "sparql-syntax"
