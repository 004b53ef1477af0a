"""The SPARQL 1.1 Protocol's dataset: ``default-graph-uri`` and ``named-graph-uri`` (each
repeatable, on GET, form POST and direct POST) choose graphs of the caller's collection only."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from SPARQLWrapper import JSON, SPARQLWrapper

from tests.support.poll import eventually
from tests.support.stack import ADMIN, Stack, create_key
from tests.support.store import document, graph_rag, labels, msg
from trustgraph_base.messaging import SPARQL, TRIPLES_STORE, Bus, Processor, RequestClient
from trustgraph_base.rdf.terms import LiteralTerm
from trustgraph_base.schema import SparqlQueryRequest
from trustgraph_flow.librarian.processor import proc as librarian
from trustgraph_flow.store.processor import proc as store

SOURCE, RETRIEVAL = "urn:graph:source", "urn:graph:retrieval"
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
EVERY = "SELECT (COUNT(*) AS ?n) WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }"
GRAPHS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?g"


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    processors: list[Processor[Any, Any]] = [store, librarian]
    async with Stack(pulsar_url, prefix, processors, data_dir=tmp_path, token=ADMIN) as running:
        await running.publish(TRIPLES_STORE, msg(document() + labels() + graph_rag("g1", 1)))
        await running.publish(TRIPLES_STORE, msg(graph_rag("r1", 1), "r", collection="research"))
        for collection, trace in (("default", "g1"), ("research", "r1")):

            async def listed(c: str = collection) -> Any:
                return await running.cli(
                    "tg-list-explain-traces", "-U", "alice", "-C", c, "-t", ADMIN
                )

            def shown(r: Any, t: str = trace) -> bool:
                return t in r.stdout

            await eventually(listed, shown)
        yield running


def endpoint(stack: Stack) -> str:
    return stack.url + "api/v1/sparql"


async def test_default_and_named_graphs_from_the_protocol(stack: Stack) -> None:
    key = await create_key(stack, "alice")
    auth = {"Authorization": f"Bearer {key}"}

    async with aiohttp.ClientSession(headers=auth) as http:

        async def rows(params: list[tuple[str, str]], how: str = "GET") -> list[Any]:
            accept = {"Accept": "application/sparql-results+json"}
            if how == "GET":
                call = http.get(endpoint(stack), params=params, headers=accept)
            elif how == "form":
                call = http.post(endpoint(stack), data=params, headers=accept)
            else:  # the query as the body, the dataset in the URL
                query = next(v for k, v in params if k == "query")
                rest = [(k, v) for k, v in params if k != "query"]
                ctype = {**accept, "Content-Type": "application/sparql-query"}
                call = http.post(endpoint(stack), params=rest, data=query, headers=ctype)
            async with call as r:
                body = await r.json()
                assert r.status == 200, body
                return [{k: v["value"] for k, v in b.items()} for b in body["results"]["bindings"]]

        async def count(params: list[tuple[str, str]], how: str = "GET") -> int:
            return int((await rows([("query", COUNT), *params], how))[0]["n"])

        def in_graph(g: str) -> str:
            return f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{g}> {{ ?s ?p ?o }} }}"

        plain = await count([])
        source = int((await rows([("query", in_graph(SOURCE))]))[0]["n"])
        retrieval = int((await rows([("query", in_graph(RETRIEVAL))]))[0]["n"])
        assert plain == len(labels()) and source > 0 and retrieval > 0
        for how in ("GET", "form", "body"):
            assert await count([("default-graph-uri", SOURCE)], how) == source
            both = [("default-graph-uri", SOURCE), ("default-graph-uri", RETRIEVAL)]
            assert await count(both, how) == source + retrieval
            only_named = [("query", GRAPHS), ("named-graph-uri", RETRIEVAL)]
            assert await rows(only_named, how) == [{"g": RETRIEVAL}]
            # Named graphs given, no default graph: the default graph is empty.
            assert await count([("named-graph-uri", RETRIEVAL)], how) == 0
        # FROM and FROM NAMED in the text: the same dataset on either store backend.
        text = "PREFIX g: <urn:graph:> SELECT (COUNT(*) AS ?n) FROM g:source WHERE { ?s ?p ?o }"
        assert int((await rows([("query", text)]))[0]["n"]) == source
        text = f"SELECT ?g FROM NAMED <{RETRIEVAL}> WHERE {{ GRAPH ?g {{ }} }}"
        assert await rows([("query", text)]) == [{"g": RETRIEVAL}]
        text = f"SELECT (COUNT(*) AS ?n) FROM NAMED <{RETRIEVAL}> WHERE {{ ?s ?p ?o }}"
        assert await rows([("query", text)]) == [{"n": "0"}]
        # ... and the protocol's dataset overrides them.
        assert await rows([("query", text), ("default-graph-uri", RETRIEVAL)]) == [
            {"n": str(retrieval)}
        ]
        # Graphs the collection does not have, or another's by its stored name: nothing.
        for other in ("urn:graph:nowhere", "urn:tg:store:alice:research:default"):
            assert await count([("default-graph-uri", other)]) == 0
        assert await rows([("query", GRAPHS), ("named-graph-uri", "urn:graph:nowhere")]) == []
        research = [("default-graph-uri", RETRIEVAL), ("collection", "research")]
        assert 0 < await count(research) < retrieval + 1

        for params, words in [
            ([("query", COUNT), ("default-graph-uri", "not an iri")], "default-graph-uri"),
            (
                [("query", COUNT)] + [("named-graph-uri", f"urn:g:{i}") for i in range(65)],
                "named-graph-uri",
            ),
        ]:
            async with http.get(endpoint(stack), params=params) as r:
                body = await r.json()
                assert r.status == 400, body
                assert body["error"]["type"] == "bad-request" and words in body["error"]["message"]

    def wrapped() -> int:
        client = SPARQLWrapper(endpoint(stack), returnFormat=JSON)
        client.addCustomHttpHeader("Authorization", f"Bearer {key}")
        client.addDefaultGraph(SOURCE)
        client.setQuery(COUNT)
        answer: Any = client.query().convert()
        return int(answer["results"]["bindings"][0]["n"]["value"])

    assert await asyncio.to_thread(wrapped) == source


async def test_an_empty_dataset_on_the_bus_is_empty(stack: Stack, bus: Bus) -> None:
    """Straight to the store: an empty list is an empty graph (never the server's every
    graph), and the other user's graphs stay out of reach whatever the names."""
    client = RequestClient(bus, stack.topics, SPARQL, "dataset")
    try:

        async def count(user: str = "alice", **dataset: Any) -> int:
            req = SparqlQueryRequest(query=EVERY, user=user, **dataset)
            resp = await client.request(req, timeout=20)
            value = resp.bindings[0].values[0]
            assert isinstance(value, LiteralTerm)
            return int(value.v)

        assert await count() > len(labels())
        assert await count(default_graph_uri=[]) == 0
        assert await count(default_graph_uri=[], named_graph_uri=[]) == 0
        assert await count(named_graph_uri=[]) == 0
        assert await count(default_graph_uri=[SOURCE]) > 0
        assert await count("bob", default_graph_uri=[SOURCE], named_graph_uri=[SOURCE]) == 0
    finally:
        await client.close()
