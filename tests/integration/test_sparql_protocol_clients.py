"""The SPARQL 1.1 Protocol as clients use it with their defaults: CONSTRUCT and DESCRIBE in
RDF/XML (SPARQLWrapper's and rdflib's default), the collection named in the endpoint URL,
an unknown collection refused, the service description, SPARQL 1.2 TSV, ASK without CSV,
CORS when configured, and the Graph Store Protocol's read-only GET."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import rdflib
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import JSON, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import EndPointNotFound

from tests.support.sparql_stack import seeded_stack
from tests.support.stack import Stack, create_key

FOX = "urn:trustgraph:entity:fox"
EDGE = "https://trustgraph.ai/ns/edge"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
SD = "http://www.w3.org/ns/sparql-service-description#"
ORIGIN = "https://viewer.example"
QUOTED = (
    f"CONSTRUCT {{ ?e <{EDGE}> ?t }} WHERE {{ GRAPH <urn:graph:retrieval> {{ ?e <{EDGE}> ?t }} }}"
)


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    async with seeded_stack(pulsar_url, prefix, tmp_path, cors_origins=ORIGIN) as running:
        yield running


def endpoint(stack: Stack, collection: str | None = None) -> str:
    return stack.url + "api/v1/sparql" + (f"/{collection}" if collection else "")


async def test_construct_and_describe_with_the_clients_defaults(stack: Stack) -> None:
    key = await create_key(stack, "alice")

    def wrapped(query: str, method: str = "GET") -> rdflib.Graph:
        client = SPARQLWrapper(endpoint(stack))  # default return format: RDF/XML for graphs
        client.addCustomHttpHeader("Authorization", f"Bearer {key}")
        client.setMethod(method)
        client.setQuery(query)
        with warnings.catch_warnings():  # SPARQLWrapper's own: it builds a ConjunctiveGraph
            warnings.simplefilter("ignore", DeprecationWarning)
            graph: Any = client.query().convert()
        assert isinstance(graph, rdflib.Graph)
        return graph

    quoted = await asyncio.to_thread(wrapped, QUOTED)
    statements = list(quoted.subjects(rdflib.RDF.type, rdflib.RDF.Statement))
    assert len(statements) == 1  # the triple term, as RDF 1.1 reads it
    assert quoted.value(statements[0], rdflib.RDF.subject) == rdflib.URIRef(FOX)
    described = await asyncio.to_thread(wrapped, f"DESCRIBE <{FOX}>", "POST")
    assert (rdflib.URIRef(FOX), rdflib.RDFS.label, rdflib.Literal("fox")) in described

    def through_rdflib(query: str) -> set[Any]:
        sparql = SPARQLStore(endpoint(stack), headers={"Authorization": f"Bearer {key}"})
        return set(rdflib.Graph(store=sparql).query(query))

    rows = await asyncio.to_thread(through_rdflib, f"DESCRIBE <{FOX}>")
    assert (rdflib.URIRef(FOX), rdflib.RDFS.label, rdflib.Literal("fox")) in rows
    rows = await asyncio.to_thread(through_rdflib, QUOTED)
    assert len(rows) == 5  # the selection's tg:edge, and the statement node's type, s, p and o


async def test_the_collection_in_the_endpoint_url(stack: Stack) -> None:
    key = await create_key(stack, "alice")
    labels_query = (
        "SELECT ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l } ORDER BY ?l"
    )

    def wrapped(collection: str, method: str) -> list[str]:
        client = SPARQLWrapper(endpoint(stack, collection), returnFormat=JSON)
        client.addCustomHttpHeader("Authorization", f"Bearer {key}")
        client.setMethod(method)
        client.setQuery(labels_query)
        answer: Any = client.query().convert()
        return [r["l"]["value"] for r in answer["results"]["bindings"]]

    for method in ("GET", "POST"):
        assert await asyncio.to_thread(wrapped, "research", method) == ["dog", "fox"]
        with pytest.raises(EndPointNotFound):  # 404: not an empty answer
            await asyncio.to_thread(wrapped, "no-such-collection", method)

    def through_rdflib(collection: str) -> list[str]:
        sparql = SPARQLStore(
            endpoint(stack, collection), headers={"Authorization": f"Bearer {key}"}
        )
        return sorted(str(r[0]) for r in rdflib.Graph(store=sparql).query(labels_query))  # type: ignore[index]

    assert await asyncio.to_thread(through_rdflib, "research") == ["dog", "fox"]
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {key}"}) as http:
        params = {"query": labels_query, "collection": "default"}
        async with http.get(endpoint(stack, "research"), params=params) as r:
            body = await r.json()
            assert r.status == 400 and "research" in body["error"]["message"]


async def test_service_description_tsv_and_ask(stack: Stack) -> None:
    key = await create_key(stack, "alice")
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {key}"}) as http:
        async with http.get(endpoint(stack)) as r:
            assert (r.status, r.content_type) == (200, "text/turtle")
            described = rdflib.Graph().parse(data=await r.text(), format="turtle")
        service = described.value(predicate=rdflib.RDF.type, object=rdflib.URIRef(SD + "Service"))
        assert described.value(service, rdflib.URIRef(SD + "endpoint")) == rdflib.URIRef(
            endpoint(stack)
        )
        assert (
            service,
            rdflib.URIRef(SD + "supportedLanguage"),
            rdflib.URIRef(SD + "SPARQL11Query"),
        ) in described
        async with http.get(endpoint(stack), headers={"Accept": "application/rdf+xml"}) as r:
            assert r.content_type == "application/rdf+xml"
            assert len(rdflib.Graph().parse(data=await r.text(), format="xml")) == len(described)
        select = f"SELECT ?t WHERE {{ GRAPH <urn:graph:retrieval> {{ ?e <{EDGE}> ?t }} }}"
        async with http.get(
            endpoint(stack),
            params={"query": select},
            headers={"Accept": "text/tab-separated-values"},
        ) as r:
            lines = (await r.text()).splitlines()
        assert lines[0] == "?t"
        assert lines[1].startswith(f"<<( <{FOX}> <") and lines[1].endswith("> )>>")
        for accept in ("text/csv", "text/tab-separated-values"):
            async with http.get(
                endpoint(stack), params={"query": "ASK { ?s ?p ?o }"}, headers={"Accept": accept}
            ) as r:
                assert r.status == 406
                assert "SELECT" in (await r.json())["error"]["message"]
        async with http.post(endpoint(stack), data={"collection": "default"}) as r:
            assert r.status == 400  # a POST must carry a query


async def test_cors_only_for_the_configured_origin(stack: Stack) -> None:
    key = await create_key(stack, "alice")
    auth = {"Authorization": f"Bearer {key}"}
    async with aiohttp.ClientSession() as http:
        for origin, allowed in ((ORIGIN, True), ("https://evil.example", False)):
            pre = {"Origin": origin, "Access-Control-Request-Method": "POST"}
            async with http.options(endpoint(stack), headers=pre) as r:
                assert r.status == 204 and "POST" in r.headers["Allow"]
                assert r.headers.get("Access-Control-Allow-Origin") == (origin if allowed else None)
            params = {"query": "ASK { ?s ?p ?o }"}
            async with http.get(
                endpoint(stack), params=params, headers={**auth, "Origin": origin}
            ) as r:
                assert r.status == 200
                assert r.headers.get("Access-Control-Allow-Origin") == (origin if allowed else None)


async def test_graph_store_reads_a_graph_and_writes_nothing(stack: Stack) -> None:
    key = await create_key(stack, "alice")
    store_url = stack.url + "api/v1/graph-store"
    async with aiohttp.ClientSession(headers={"Authorization": f"Bearer {key}"}) as http:
        async with http.get(store_url, params={"graph": "urn:graph:retrieval"}) as r:
            assert (r.status, r.content_type) == (200, "text/turtle")
            assert "g1" in await r.text()
        async with http.get(
            store_url + "/research",
            params={"default": ""},
            headers={"Accept": "application/n-triples"},
        ) as r:
            assert r.status == 200
            assert len((await r.text()).strip().splitlines()) == 2
        for params, status in (
            ({"graph": "urn:graph:none"}, 404),
            ({}, 400),
            ({"graph": "not an iri"}, 400),
        ):
            async with http.get(store_url, params=params) as r:
                assert r.status == status, params
        async with http.put(
            store_url, params={"default": ""}, data="<urn:a> <urn:b> <urn:c> ."
        ) as r:
            assert r.status == 405 and "GET" in r.headers["Allow"]
    async with (
        aiohttp.ClientSession() as anonymous,
        anonymous.get(store_url, params={"default": ""}) as r,
    ):
        assert r.status == 401
