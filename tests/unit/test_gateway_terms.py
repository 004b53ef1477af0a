"""Term parsing and formatting for the commands, and SPARQL result rendering."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from trustgraph_base.rdf.terms import XSD, BlankTerm, IriTerm, LiteralTerm, iri, lit, quoted
from trustgraph_cli import query_triples, sparql
from trustgraph_cli.terms import (
    TermError,
    display_term,
    format_term,
    format_triple,
    parse_term,
    sparql_json_term,
)


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("<http://ex.org/a>", IriTerm(i="http://ex.org/a")),
        ("http://ex.org/a", IriTerm(i="http://ex.org/a")),
        ("urn:trustgraph:doc:1", IriTerm(i="urn:trustgraph:doc:1")),
        ('"plain"', LiteralTerm(v="plain")),
        ('"Alice"@en-GB', LiteralTerm(v="Alice", ln="en-GB")),
        ('"5"^^<' + XSD + "integer>", LiteralTerm(v="5", dt=XSD + "integer")),
        (
            '"2024-01-02T03:04:05Z"^^xsd:dateTime',
            LiteralTerm(v="2024-01-02T03:04:05Z", dt=XSD + "dateTime"),
        ),
        ('"say \\"hi\\"\\n"', LiteralTerm(v='say "hi"\n')),
        ("_:b1", BlankTerm(d="b1")),
    ],
)
def test_parse(text: str, term: object) -> None:
    assert parse_term(text) == term


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("not an iri", "not a term"),
        ("<no scheme>", "no scheme"),
        ('"unbalanced', "unbalanced"),
        ('"x"^^xsd:integer', "not a valid xsd:integer"),
        ('"5\\n"^^xsd:integer', "not a valid xsd:integer"),  # `$` took a final newline
        ('"٣"^^xsd:integer', "not a valid xsd:integer"),  # an Arabic-Indic 3: `\d`, no XSD digit
        ('"2024-01-02T03:04:05Z\\n"^^xsd:dateTime', "not a valid xsd:dateTime"),
        ('"true\\n"^^xsd:boolean', "not a valid xsd:boolean"),
        ("<http://a b>", "forbidden character"),
    ],
)
def test_parse_refuses_naming_the_value(text: str, fault: str) -> None:
    with pytest.raises(TermError) as err:
        parse_term(text)
    assert fault in str(err.value) and repr(text) in str(err.value)


def test_bare_text_is_a_literal_only_where_allowed() -> None:
    assert parse_term("Alice", bare_literal=True) == LiteralTerm(v="Alice")
    with pytest.raises(TermError):
        parse_term("Alice")


def test_round_trip_through_format() -> None:
    for term in (iri("urn:a"), lit("x", lang="en"), lit(5), lit('q"uote\n'), BlankTerm(d="b")):
        assert parse_term(format_term(term)) == term
    edge = quoted(iri("urn:s"), iri("urn:p"), lit("o"))
    assert format_term(edge.model_dump()) == '<<( <urn:s> <urn:p> "o" )>>'
    assert display_term({"t": "l", "v": "text", "ln": "en"}) == "text"
    triple = {
        "s": {"t": "i", "i": "urn:s"},
        "p": {"t": "i", "i": "urn:p"},
        "o": {"t": "i", "i": "urn:o"},
    }
    assert format_triple({**triple, "g": "urn:g"}) == "<urn:s> <urn:p> <urn:o> <urn:g> ."


def test_sparql_json_terms() -> None:
    assert sparql_json_term(lit(5)) == {
        "type": "literal",
        "value": "5",
        "datatype": XSD + "integer",
    }
    assert sparql_json_term(lit("a", lang="en")) == {
        "type": "literal",
        "value": "a",
        "xml:lang": "en",
    }
    assert sparql_json_term(lit("a", dt=XSD + "string")) == {"type": "literal", "value": "a"}
    assert sparql_json_term(BlankTerm(d="x")) == {"type": "bnode", "value": "x"}
    nested = sparql_json_term(quoted(iri("urn:s"), iri("urn:p"), iri("urn:o")))
    assert nested["type"] == "triple" and nested["value"]["object"] == {
        "type": "uri",
        "value": "urn:o",
    }


def test_render_select_as_table_csv_and_json() -> None:
    reply = {  # TrustGraph's result shape: a value per variable, in order, null when unbound
        "query-type": "select",
        "variables": ["s", "n"],
        "bindings": [
            {"values": [{"t": "i", "i": "urn:a"}, {"t": "l", "v": 'x,"y"'}]},
            {"values": [{"t": "b", "d": "b0"}, None]},
        ],
    }
    assert sparql.render(reply, "csv") == 's,n\r\nurn:a,"x,""y"""\r\n_:b0,\r\n'
    table = sparql.render(reply, "table").splitlines()
    assert table[0].split() == ["s", "n"] and table[-1] == "(2 rows)"
    shown = json.loads(sparql.render(reply, "json"))
    assert shown["results"]["bindings"][1] == {"s": {"type": "bnode", "value": "b0"}}
    assert sparql.render({"query-type": "ask", "ask-result": False}, "table") == "false\n"
    count = {
        "query-type": "select",
        "variables": ["n"],
        "bindings": [{"values": [lit(34).model_dump()]}],
    }
    assert sparql.render(count, "table").splitlines()[2] == "34"


def test_usage_errors_exit_2_naming_the_value() -> None:
    runner = CliRunner()
    result = runner.invoke(query_triples.main, ["-p", '"lit"'])
    assert result.exit_code == 2 and "'\"lit\"' is a literal; expected an IRI" in result.output
    result = runner.invoke(query_triples.main, ["-g", "not a graph"])
    assert result.exit_code == 2 and "not a graph" in result.output
    result = runner.invoke(sparql.main, ["SELECT *", "-f", "-"], input="x")
    assert result.exit_code == 2 and "exactly one" in result.output
    for command in (query_triples.main, sparql.main):
        assert "Examples:" in runner.invoke(command, ["--help"]).output
