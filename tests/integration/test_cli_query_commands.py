"""tg-query-triples and tg-sparql as real subprocesses against a gateway and the real store."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.support.poll import eventually
from tests.support.stack import Stack, run_cli
from trustgraph_base.messaging import TRIPLES_STORE, free_port
from trustgraph_base.rdf.terms import Triple, iri, lit, quoted
from trustgraph_base.schema import Metadata, Triples
from trustgraph_flow.librarian.processor import proc as librarian
from trustgraph_flow.store.processor import proc as store

A, B, KNOWS, AGE = "urn:test:alice", "urn:test:bob", "urn:test:knows", "urn:test:age"
SOURCE = "urn:graph:source"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SELECT = f"SELECT ?o WHERE {{ <{A}> <{KNOWS}> ?o }}"


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    # the librarian: a collection's existence is the store's and the librarian's to say
    async with Stack(
        pulsar_url, prefix, [store, librarian], data_dir=tmp_path, token="tok"
    ) as running:
        triples = [
            Triple(s=iri(A), p=iri(KNOWS), o=iri(B)),
            Triple(s=iri(A), p=iri(AGE), o=lit(42)),
            Triple(s=iri(A), p=iri(LABEL), o=lit("Alice", lang="en")),
            Triple(s=iri(A), p=iri("urn:test:saw"), o=quoted(iri(A), iri(KNOWS), iri(B)), g=SOURCE),
        ]
        await running.publish(TRIPLES_STORE, Triples(metadata=Metadata(id="m"), triples=triples))
        await eventually(
            lambda: running.cli("tg-query-triples", "-s", A), lambda r: r.stdout.count("\n") == 4
        )
        yield running


async def test_query_triples_formats_and_graphs(stack: Stack) -> None:
    code, out, err = await stack.cli("tg-query-triples", "-s", f"<{A}>", "-p", KNOWS)
    assert (code, err) == (0, "")
    assert out == f"<{A}> <{KNOWS}> <{B}> .\n"
    code, out, _ = await stack.cli("tg-query-triples", "-o", '"Alice"@en', "--format", "json")
    assert code == 0
    assert json.loads(out) == [
        {
            "s": {"t": "i", "i": A},
            "p": {"t": "i", "i": LABEL},
            "o": {"t": "l", "v": "Alice", "ln": "en"},
        }
    ]
    code, out, _ = await stack.cli("tg-query-triples", "-s", A, "-g", "")
    assert code == 0 and out.count("\n") == 3 and SOURCE not in out
    code, out, _ = await stack.cli("tg-query-triples", "-g", SOURCE)
    assert out == f"<{A}> <urn:test:saw> <<( <{A}> <{KNOWS}> <{B}> )>> <{SOURCE}> .\n"
    code, out, _ = await stack.cli("tg-query-triples", "-o", '"42"^^xsd:integer', "--limit", "1")
    assert out == f'<{A}> <{AGE}> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'


async def test_sparql_select_ask_construct(stack: Stack, tmp_path: Path) -> None:
    code, out, err = await stack.cli("tg-sparql", SELECT)
    assert code == 0, err
    assert out.splitlines() == ["o", "-" * len(f"<{B}>"), f"<{B}>", "(1 row)"]
    code, out, _ = await stack.cli("tg-sparql", SELECT, "--format", "json")
    assert json.loads(out) == {
        "head": {"vars": ["o"]},
        "results": {"bindings": [{"o": {"type": "uri", "value": B}}]},
    }
    query_file = tmp_path / "q.rq"
    query_file.write_text(f"SELECT ?age WHERE {{ <{A}> <{AGE}> ?age }}")
    code, out, _ = await stack.cli("tg-sparql", "-f", str(query_file), "--format", "csv")
    assert out == "age\r\n42\r\n"
    code, out, _ = await stack.cli(
        "tg-sparql", f"ASK {{ <{A}> <{KNOWS}> <{B}> }}", "--format", "json"
    )
    assert json.loads(out) == {"head": {}, "boolean": True}
    construct = f"CONSTRUCT {{ ?s <urn:test:friend> ?o }} WHERE {{ ?s <{KNOWS}> ?o }}"
    code, out, _ = await stack.cli("tg-sparql", construct)
    assert out == f"<{A}> <urn:test:friend> <{B}> .\n"


async def test_errors_are_one_line(stack: Stack, tmp_path: Path) -> None:
    code, out, err = await stack.cli("tg-sparql", "SELEKT ?x")
    assert code == 1 and out == "" and err.startswith("Error: ") and "[sparql-syntax]" in err
    code, _, err = await stack.cli("tg-sparql", SELECT, env={"TRUSTGRAPH_TOKEN": "wrong"})
    assert code == 1 and "refused the token" in err
    code, _, err = await stack.cli("tg-query-triples", "-s", "not an iri")
    assert code == 2 and "'not an iri'" in err
    code, _, err = await stack.cli("tg-sparql")
    assert code == 2 and "QUERY" in err
    binary = tmp_path / "query.rq"
    binary.write_bytes(b"SELECT * WHERE { ?s ?p \xd0\x00 }")  # not UTF-8: a wrong file
    code, out, err = await stack.cli("tg-sparql", "-f", str(binary))
    assert (code, out) == (2, "") and err.splitlines() == [
        f"Error: Invalid value for '-f' / '--file': {str(binary)!r} is not UTF-8 text "
        "(byte 23). (see 'tg-sparql --help')"
    ]


async def test_a_mistyped_collection_is_named_not_counted_as_empty(stack: Stack) -> None:
    """tg-sparql's COUNT in a collection that does not exist said 0 (one row, exit 0) and
    tg-query-triples printed nothing: a typo read as an empty collection. Both now say there
    is no such collection and name the user's; a collection that exists counts as before.
    So do the listing commands (they said "No traces in collection 'wrok'", exit 0)."""
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    fact = Triple(s=iri(B), p=iri(KNOWS), o=iri(A))
    await stack.publish(
        TRIPLES_STORE, Triples(metadata=Metadata(id="w", collection="work"), triples=[fact])
    )
    work = await eventually(
        lambda: stack.cli("tg-sparql", "-C", "work", count, "--format", "csv"),
        lambda r: r.stdout == "n\r\n1\r\n",
    )
    assert work.code == 0, work
    refusal = "Error: no collection 'wrok' of user 'trustgraph': the user's are default, work (tg-list-collections)\n"
    listings = [["tg-list-documents"], ["tg-list-explain-traces"], ["tg-show-faithfulness"]]
    for command in (["tg-sparql", count], ["tg-query-triples", "-s", A], *listings):
        code, out, err = await stack.cli(*command, "-C", "wrok")
        assert (code, out, err) == (1, "", refusal), command
    code, out, err = await stack.cli("tg-verify-log", "-C", "wrok", "--format", "json")
    assert (code, out, err) == (1, "", refusal)
    empty = await stack.cli("tg-list-explain-traces", "-C", "work")  # there, with no traces
    assert empty[:3] == (0, "No traces in collection 'work' of user 'trustgraph'.\n", "")
    code, out, _ = await stack.cli("tg-sparql", count, "--format", "csv")  # default: not asked
    assert (code, out) == (0, "n\r\n3\r\n")


async def test_unreachable_gateway() -> None:
    url = f"http://127.0.0.1:{free_port()}/"
    code, out, err = await run_cli("tg-query-triples", "-u", url)
    assert (code, out) == (1, "")
    assert err == (
        f"Error: cannot reach gateway at {url} (connection refused). "
        "Start it with 'tg-start', or pass --api-url.\n"
    )


async def test_select_star_keeps_the_query_order_in_every_format(stack: Stack) -> None:
    star = f"SELECT * WHERE {{ ?s <{KNOWS}> ?o . ?s <{AGE}> ?age }}"
    code, out, err = await stack.cli("tg-sparql", star)
    assert code == 0, err
    assert out.splitlines()[0].split() == ["s", "o", "age"]
    code, out, _ = await stack.cli("tg-sparql", star, "--format", "json")
    assert json.loads(out)["head"]["vars"] == ["s", "o", "age"]
    code, out, _ = await stack.cli("tg-sparql", star, "--format", "csv")
    assert out.splitlines()[0] == "s,o,age"
    written = f"SELECT ?age ?o WHERE {{ ?s <{KNOWS}> ?o . ?s <{AGE}> ?age }}"  # sorted as written
    code, out, _ = await stack.cli("tg-sparql", written, "--format", "csv")
    assert out.splitlines()[0] == "age,o"


EVIL = "\x1b[2J\x1b]0;owned\x07Eve\x9b31m\u202e"
SHOWN = "\\x1b[2J\\x1b]0;owned\\x07Eve\\u009b31m\\u202e"


async def test_stored_control_characters_are_shown_escaped_but_json_is_exact(stack: Stack) -> None:
    eve = "urn:test:eve"
    await stack.publish(
        TRIPLES_STORE,
        Triples(
            metadata=Metadata(id="m2"), triples=[Triple(s=iri(eve), p=iri(LABEL), o=lit(EVIL))]
        ),
    )
    found = await eventually(
        lambda: stack.cli("tg-query-triples", "-s", eve), lambda r: r.stdout.count("\n") == 1
    )
    assert found.stdout == f'<{eve}> <{LABEL}> "{SHOWN}" .\n'
    assert "\x1b" not in found.stdout
    _, out, _ = await stack.cli("tg-query-triples", "-s", eve, "--format", "json")
    assert json.loads(out)[0]["o"]["v"] == EVIL
    query = f"SELECT ?label WHERE {{ <{eve}> <{LABEL}> ?label }}"
    _, out, _ = await stack.cli("tg-sparql", query)
    assert out.splitlines()[2] == f'"{SHOWN}"'
    _, out, _ = await stack.cli("tg-sparql", query, "--format", "json")
    assert json.loads(out)["results"]["bindings"][0]["label"]["value"] == EVIL
