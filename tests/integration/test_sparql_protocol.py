"""The SPARQL 1.1 Protocol endpoint on the real gateway and store, queried by real SPARQL clients:
rdflib's SPARQLStore and SPARQLWrapper (run in threads: they block, and this loop serves them)."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.error import HTTPError

import aiohttp
import pyoxigraph as ox
import pytest
import rdflib
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import CSV, JSON, N3, TSV, TURTLE, XML, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed, Unauthorized

from tests.support.poll import eventually
from tests.support.stack import ADMIN, Stack, create_key
from tests.support.store import EDGE_FOX, document, graph_rag, labels, msg
from trustgraph_base.messaging import TRIPLES_STORE
from trustgraph_base.rdf.terms import Triple
from trustgraph_flow.librarian.processor import proc as librarian
from trustgraph_flow.store.processor import proc as store

LABELS = "SELECT ?s ?label WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label } ORDER BY ?label"
FOX = "urn:trustgraph:entity:fox"


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    async with Stack(
        pulsar_url, prefix, [store, librarian], data_dir=tmp_path, token=ADMIN
    ) as running:
        fact = Triple(s=EDGE_FOX[0], p=EDGE_FOX[1], o=EDGE_FOX[2])
        await running.publish(
            TRIPLES_STORE, msg(document() + labels() + [fact] + graph_rag("g1", 1))
        )
        await running.publish(TRIPLES_STORE, msg(labels()[:1], user="bob"))
        await eventually(
            lambda: running.cli("tg-list-explain-traces", "-U", "alice", "-t", ADMIN),
            lambda r: "g1" in r.stdout,
        )
        yield running


def endpoint(stack: Stack) -> str:
    return stack.url + "api/v1/sparql"


def wrapper(stack: Stack, key: str, fmt: str, query: str, **params: str) -> SPARQLWrapper:
    client = SPARQLWrapper(endpoint(stack), returnFormat=fmt)
    client.addCustomHttpHeader("Authorization", f"Bearer {key}")
    for name, value in params.items():
        client.addParameter(name, value)
    client.setQuery(query)
    return client


async def test_rdflib_sparqlstore_reads_the_callers_own_collection(stack: Stack) -> None:
    alice = await create_key(stack, "alice")

    def labels_as(key: str, collection: str = "default") -> list[tuple[str, str]]:
        sparql = SPARQLStore(
            query_endpoint=endpoint(stack),
            headers={"Authorization": f"Bearer {key}"},
            params={"collection": collection},
        )
        graph = rdflib.Graph(store=sparql)
        return [(str(r[0]), str(r[1])) for r in graph.query(LABELS)]  # type: ignore[index]

    rows = await asyncio.to_thread(labels_as, alice)
    assert rows[:2] == [
        ("urn:trustgraph:entity:cat", "cat"),
        ("urn:trustgraph:rel:chases", "chases"),
    ]
    assert len(rows) == 5
    # a collection alice does not have: an error (rdflib wraps the 404), not an empty answer
    with pytest.raises(ValueError) as unknown:
        await asyncio.to_thread(labels_as, alice, "other")
    cause = unknown.value.__context__
    assert isinstance(cause, HTTPError) and cause.code == 404
    cause.close()  # rdflib leaves the error's unread response, and its socket, open
    bob = await create_key(stack, "bob")
    assert await asyncio.to_thread(labels_as, bob) == [(FOX, "fox")]  # bob's store, not alice's

    def ask(key: str) -> bool:
        graph = rdflib.Graph(
            store=SPARQLStore(
                query_endpoint=endpoint(stack), headers={"Authorization": f"Bearer {key}"}
            )
        )
        return bool(graph.query(f"ASK {{ <{FOX}> ?p ?o }}").askAnswer)

    assert await asyncio.to_thread(ask, alice) is True


async def test_sparqlwrapper_gets_every_result_format(stack: Stack) -> None:
    key = await create_key(stack, "alice")
    select = (
        f"SELECT ?label WHERE {{ <{FOX}> <http://www.w3.org/2000/01/rdf-schema#label> ?label }}"
    )

    def run(fmt: str, query: str = select, method: str = "GET") -> Any:
        client = wrapper(stack, key, fmt, query)
        client.setMethod(method)
        return client.query().convert()

    as_json = await asyncio.to_thread(run, JSON)
    assert as_json["results"]["bindings"] == [{"label": {"type": "literal", "value": "fox"}}]
    xml = await asyncio.to_thread(run, XML, select, "POST")
    assert [n.firstChild.data for n in xml.getElementsByTagName("literal")] == ["fox"]
    rows = list(csv.reader(io.StringIO((await asyncio.to_thread(run, CSV)).decode())))
    assert rows == [["label"], ["fox"]]
    tsv = (await asyncio.to_thread(run, TSV)).decode().splitlines()
    assert tsv == ["?label", '"fox"']

    construct = (
        "CONSTRUCT { ?e <urn:test:quoted> ?t } WHERE { GRAPH <urn:graph:retrieval> "
        "{ ?e <https://trustgraph.ai/ns/edge> ?t } }"
    )
    turtle = await asyncio.to_thread(run, TURTLE, construct)
    parsed = list(ox.parse(input=turtle, format=ox.RdfFormat.TURTLE))
    assert len(parsed) == 1 and isinstance(parsed[0].object, ox.Triple)  # RDF 1.2 triple term kept
    assert parsed[0].object.subject == ox.NamedNode(FOX)
    describe = await asyncio.to_thread(run, N3, f"DESCRIBE <{FOX}>")
    assert b"fox" in describe


async def test_raw_protocol_requests(stack: Stack) -> None:
    key = await create_key(stack, "alice")
    auth = {"Authorization": f"Bearer {key}"}
    construct = f"CONSTRUCT {{ <{FOX}> ?p ?o }} WHERE {{ <{FOX}> ?p ?o }}"
    async with aiohttp.ClientSession(headers=auth) as http:
        async with http.post(
            endpoint(stack),
            data=construct.encode(),
            headers={
                "Content-Type": "application/sparql-query",
                "Accept": "application/trig;q=0.9, application/n-triples;q=0.5",
            },
        ) as r:
            assert (r.status, r.content_type) == (200, "application/trig")
            quads = set(ox.parse(input=await r.read(), format=ox.RdfFormat.TRIG))
        async with http.post(
            endpoint(stack), data={"query": construct}, headers={"Accept": "application/n-triples"}
        ) as r:
            assert r.content_type == "application/n-triples"
            nt = ox.parse(input=await r.read(), format=ox.RdfFormat.N_TRIPLES)
            assert {(q.subject, q.predicate, q.object) for q in quads} == {
                (q.subject, q.predicate, q.object) for q in nt
            }
            assert len(quads) == 2
        async with http.get(
            endpoint(stack), params={"query": "ASK { ?s ?p ?o }"}, headers={"Accept": "text/csv"}
        ) as r:
            assert r.status == 406  # CSV and TSV carry SELECT results only
        async with http.get(
            endpoint(stack), params={"query": LABELS}, headers={"Accept": "image/png"}
        ) as r:
            assert r.status == 406
        for params, kind in [
            ({"query": "INSERT DATA { <urn:a> <urn:b> <urn:c> }"}, "sparql-update-refused"),
            ({"update": "DROP ALL"}, "sparql-update-refused"),
            (
                {"query": "SELECT * WHERE { SERVICE <http://x/> { ?s ?p ?o } }"},
                "sparql-service-refused",
            ),
            ({"query": "SELEC nonsense"}, "sparql-syntax"),
            ({"query": ""}, "bad-request"),
            ({"query": LABELS, "user": "bob"}, "forbidden"),
        ]:
            async with http.get(endpoint(stack), params=params) as r:
                body = json.loads(await r.text())
                assert r.status in (400, 403) and body["error"]["type"] == kind, (params, body)
    async with (
        aiohttp.ClientSession() as anonymous,
        anonymous.get(endpoint(stack), params={"query": LABELS}) as r,
    ):
        assert r.status == 401


async def test_a_count_over_a_collection_that_does_not_exist_is_not_found(stack: Stack) -> None:
    """A user's first query, a COUNT, with a mistyped collection: it was 200 and one row, 0
    (an aggregate over nothing is a row), read as an empty collection; now the 404 an empty
    answer gets. A collection that exists counts as before, and its one row is its count."""
    key = await create_key(stack, "alice")
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    await stack.publish(TRIPLES_STORE, msg(labels()[:2], collection="work"))

    async def counted(collection: str) -> tuple[int, dict[str, Any]]:
        async with (
            aiohttp.ClientSession(headers={"Authorization": f"Bearer {key}"}) as http,
            http.get(f"{endpoint(stack)}/{collection}", params={"query": count}) as r,
        ):
            return r.status, json.loads(await r.text())

    status, body = await eventually(lambda: counted("work"), lambda r: r[0] == 200)
    assert body["results"]["bindings"][0]["n"]["value"] == "2"
    status, body = await counted("wrok")
    assert status == 404 and body["error"] == {
        "type": "not-found",
        "message": "no collection 'wrok': tg-list-collections shows yours",
    }
    status, body = await counted("default")  # never checked: every user has it
    assert status == 200 and int(body["results"]["bindings"][0]["n"]["value"]) > 2
    # No librarian to list the collections: the check gives up after LISTING_WAIT and the
    # answer stands (it waited for the librarian for good)
    await stack.stop_processor("librarian")
    status, body = await counted("wrok")
    assert status == 200 and body["results"]["bindings"][0]["n"]["value"] == "0", body


async def test_sparqlwrapper_sees_refusals_as_errors(stack: Stack) -> None:
    key = await create_key(stack, "alice")

    def run(key: str, query: str) -> Any:
        return wrapper(stack, key, JSON, query).query().convert()

    with pytest.raises(QueryBadFormed):
        await asyncio.to_thread(run, key, "SELECT ?x WHERE { ?x ?y }")
    with pytest.raises(Unauthorized):
        await asyncio.to_thread(run, "wrong-key", LABELS)
