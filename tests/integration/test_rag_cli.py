"""tg-invoke-graph-rag and tg-invoke-document-rag end to end: a PDF loaded through the
gateway and the real pipeline, questions answered with traces that lead back to its pages.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.processors import RAG, SAMPLES
from tests.support.stack import Stack
from trustgraph_base.messaging import TRIPLES_QUERY, Bus, Processor, RequestClient, Topics
from trustgraph_base.provenance import GRAPH_RETRIEVAL, GRAPH_SOURCE, PROV, RDF, TG
from trustgraph_base.rdf.terms import IriTerm, Term, TripleTerm
from trustgraph_base.schema import TriplesQueryRequest
from trustgraph_cli.rag_output import OFFLINE_NOTE

USER = "carol"


class Store:
    """Read-only view of the user's collection, straight from the store service."""

    def __init__(self, stack: Stack) -> None:
        self.bus = Bus(stack.pulsar_url)
        self.client = RequestClient(self.bus, Topics(stack.prefix), TRIPLES_QUERY, "rag-cli")

    async def close(self) -> None:
        await self.client.close()
        await self.bus.close()

    async def one(self, s: Term, p: IriTerm, g: str) -> Term:
        req = TriplesQueryRequest(user=USER, s=s, p=p, g=g)
        found = (await self.client.request(req, timeout=10)).triples
        assert found, f"nothing for {s} {p.i} in {g}"
        return found[0].o

    async def page_of(self, entity: IriTerm, predicate: IriTerm, o: Term | None = None) -> str:
        """The page an edge (quoted ``o``) or a chunk (``entity``) came from."""
        if o is not None:
            req = TriplesQueryRequest(user=USER, p=predicate, o=o, g=GRAPH_SOURCE)
            holders = (await self.client.request(req, timeout=10)).triples
            assert holders, "the focus edge is in no extracted subgraph"
            subgraph = holders[0].s
            assert isinstance(subgraph, IriTerm)
            entity_ = await self.one(subgraph, PROV.wasDerivedFrom, GRAPH_SOURCE)
            assert isinstance(entity_, IriTerm)
            entity = entity_
        page = await self.one(entity, PROV.wasDerivedFrom, GRAPH_SOURCE)
        req = TriplesQueryRequest(user=USER, s=page, p=RDF.type, o=TG.Page, g=GRAPH_SOURCE)
        assert (await self.client.request(req, timeout=10)).triples, f"{page} is not a page"
        assert isinstance(page, IriTerm)
        return page.i


async def test_load_then_ask_both_ways(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path) as stack:
        scope = ("-U", USER)
        loaded = await stack.cli("tg-load-document", str(SAMPLES / "world-facts.pdf"), *scope)
        assert loaded.code == 0, loaded.stderr
        doc = loaded.stdout.strip().splitlines()[-1]

        graph = await stack.cli(
            "tg-invoke-graph-rag", "-x", "-q", "What is the capital of France?", *scope
        )
        assert graph.code == 0, graph.stderr
        assert "Paris" in graph.stdout
        trace = graph.stderr.strip().splitlines()[-1].removeprefix("trace: ")
        assert trace.startswith("urn:trustgraph:question:")
        explained = [ln.removeprefix("Explain: ") for ln in graph.stderr.splitlines()[:-2]]
        stages = ("/exploration", "/focus", "/synthesis", "/synthesis/verification")
        grounding = trace.replace("urn:trustgraph:question:", "urn:trustgraph:prov:grounding:")
        assert explained == [trace, grounding, *(trace + s for s in stages)]
        assert graph.stderr.splitlines()[-2] == OFFLINE_NOTE

        docs = await stack.cli(
            "tg-invoke-document-rag", "--no-streaming", "-q", "Where was Marie Curie born?", *scope
        )
        assert docs.code == 0, docs.stderr
        assert "Warsaw" in docs.stdout
        assert docs.stderr.splitlines()[0] == OFFLINE_NOTE
        assert docs.stderr.splitlines()[1].startswith("trace: urn:trustgraph:docrag:")
        doc_trace = docs.stderr.splitlines()[1].removeprefix("trace: ")

        store = Store(stack)
        try:
            edge = await store.one(IriTerm(i=trace + "/focus/e1"), TG.edge, GRAPH_RETRIEVAL)
            assert isinstance(edge, TripleTerm)
            page = await store.page_of(IriTerm(i=trace), TG.contains, edge)
            assert page == doc + "/p1"
            chunk = await store.one(
                IriTerm(i=doc_trace + "/exploration"), TG.selectedChunk, GRAPH_RETRIEVAL
            )
            assert isinstance(chunk, IriTerm)
            assert (await store.page_of(chunk, TG.contains)).startswith(doc + "/p")
        finally:
            await store.close()


async def test_empty_collection_and_unreachable_gateway(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    from trustgraph_flow.document_rag import processor as document_rag
    from trustgraph_flow.embeddings import processor as embeddings
    from trustgraph_flow.store import processor as store
    from trustgraph_flow.vectors import processor as vectors

    procs: list[Processor[Any, Any]] = [
        store.proc,
        embeddings.proc,
        vectors.proc,
        document_rag.proc,
    ]
    async with Stack(pulsar_url, prefix, procs, data_dir=tmp_path) as stack:
        empty = await stack.cli("tg-invoke-document-rag", "-q", "anything?", "-C", "nothing")
    assert empty.code == 1
    assert "collection 'nothing' of user 'trustgraph' has no documents" in empty.stderr
    assert "tg-load-document" in empty.stderr and "Traceback" not in empty.stderr
    down = await stack.cli("tg-invoke-graph-rag", "-q", "x", env={"TRUSTGRAPH_URL": stack.url})
    assert down.code == 1 and "cannot reach gateway" in down.stderr


async def test_documents_without_edges_are_not_called_no_documents(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    # Lower-case prose: the offline engine finds no subject in it, so no edge is extracted.
    text = tmp_path / "plain.txt"
    text.write_text("just some words without any names in them. nothing to relate here.\n")
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path) as stack:
        loaded = await stack.cli("tg-load-document", str(text), "-U", USER)
        assert loaded.code == 0, loaded.stderr
        graph = await stack.cli("tg-invoke-graph-rag", "-q", "What is here?", "-U", USER)
        docs = await stack.cli("tg-invoke-document-rag", "-q", "What is here?", "-C", "other")
    assert graph.code == 1
    assert (
        f"no knowledge edges were extracted from the 1 document in collection 'default' of "
        f"user '{USER}'"
    ) in graph.stderr
    assert "tg-invoke-document-rag answers from their text" in graph.stderr
    assert "has no documents" not in graph.stderr and "Traceback" not in graph.stderr
    assert (
        docs.code == 1 and "collection 'other' of user 'trustgraph' has no documents" in docs.stderr
    )
