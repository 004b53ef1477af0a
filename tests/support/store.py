"""Trace and document data for the store tests, built with the real provenance builders."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox

from tests.support.sparql_server import store_backend
from trustgraph_base.provenance import (
    RDFS,
    SelectedEdge,
    activity_triples,
    agent_final_triples,
    agent_iteration_triples,
    agent_session_triples,
    chunk_triples,
    docrag_exploration_triples,
    docrag_question_triples,
    document_triples,
    failure_triples,
    graph_rag_exploration_triples,
    graph_rag_focus_triples,
    graph_rag_question_triples,
    metrics_triples,
    now_iso,
    page_triples,
    subgraph_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.rdf.terms import IriTerm, Triple, iri, lit
from trustgraph_base.schema import Metadata, Triples
from trustgraph_flow.store.backends.embedded.trace_index import TraceIndex
from trustgraph_flow.store.core.backend import Backend, Handle
from trustgraph_flow.store.governance.seal import Seal, open_seal
from trustgraph_flow.store.service.writer import write_batch

__test__ = False

DOC = "urn:trustgraph:doc:d1"
FOX, DOG, JUMPS = uris.entity_uri("fox"), uris.entity_uri("dog"), uris.relation_uri("jumps over")
CAT, CHASES = uris.entity_uri("cat"), uris.relation_uri("chases")
EDGE_FOX = (iri(FOX), iri(JUMPS), iri(DOG))
EDGE_CAT = (iri(CAT), iri(CHASES), iri(FOX))
TIME = "2026-01-01T00:00:{:02d}.000Z"


def msg(
    triples: list[Triple], ident: str = "m", user: str = "alice", collection: str = "default"
) -> Triples:
    return Triples(metadata=Metadata(id=ident, user=user, collection=collection), triples=triples)


def labels() -> list[Triple]:
    """rdfs:label of the extracted entities in the default graph."""
    pairs = [(FOX, "fox"), (DOG, "dog"), (JUMPS, "jumps over"), (CAT, "cat"), (CHASES, "chases")]
    return [Triple(s=iri(u), p=RDFS.label, o=lit(text)) for u, text in pairs]


Layout = dict[int, list[tuple[int, list[tuple[IriTerm, IriTerm, IriTerm]]]]]


def paged_document(doc: str, title: str, layout: Layout, decoded_at: str) -> list[Triple]:
    """A PDF ``doc``: ``layout`` maps each page number to its chunks (index, extracted edges).

    Its activities are named as the processors name theirs: one decode of the document, one
    chunking of each page, one extraction of each chunk."""
    out = document_triples(doc, title, "application/pdf")
    decode = uris.activity_uri(doc, "decode")
    out += activity_triples(decode, uris.component_uri("decoder"), "decoder", decoded_at, used=doc)
    for page_number, chunks in layout.items():
        page = uris.page_uri(doc, page_number)
        out += page_triples(page, doc, page_number, decode)
        chunking = uris.activity_uri(page, "chunk")
        out += activity_triples(
            chunking, uris.component_uri("chunker"), "chunker", decoded_at, used=page
        )
        for index, edges in chunks:
            chunk = uris.chunk_uri(page, index)
            out += chunk_triples(chunk, page, index, index * 100, 100, chunking)
            extract = uris.activity_uri(chunk, "extract")
            out += activity_triples(
                extract, uris.component_uri("extractor"), "extractor", decoded_at, used=chunk
            )
            out += subgraph_triples(uris.subgraph_uri(chunk), chunk, edges, extract)
    return out


def document() -> list[Triple]:
    """d1: page 1 (chunks 0, 1), page 2 (chunk 0); fox-edge in p1/c0, cat-edge in p2/c0."""
    layout: Layout = {2: [(0, [EDGE_CAT])], 1: [(1, []), (0, [EDGE_FOX])]}
    return paged_document(DOC, "Sample PDF", layout, TIME.format(0))


def plain_document(doc: str = "urn:trustgraph:doc:notes") -> list[Triple]:
    """A page-less document with two chunks directly under it."""
    out = document_triples(doc, "Notes", "text/plain")
    chunking = uris.activity_uri(doc, "chunk")
    out += activity_triples(
        chunking, uris.component_uri("chunker"), "chunker", TIME.format(0), used=doc
    )
    for index in (1, 0):
        out += chunk_triples(uris.chunk_uri(doc, index), doc, index, index * 50, 50, chunking)
    return out


def graph_rag(
    sid: str, second: int, parent: str | None = None, *, finished: bool = True
) -> list[Triple]:
    """A GraphRAG trace selecting the fox edge; ``parent`` makes it a sub-trace."""
    q = uris.graph_rag_question_uri(sid)
    out = graph_rag_question_triples(
        q, f"what does the fox do? ({sid})", TIME.format(second), parent
    )
    out += graph_rag_exploration_triples(uris.exploration_uri(q), q, 7)
    out += graph_rag_focus_triples(
        uris.focus_uri(q), uris.exploration_uri(q), q, [SelectedEdge(*EDGE_FOX, "the fox acts")]
    )
    if finished:
        out += synthesis_triples(uris.synthesis_uri(q), uris.focus_uri(q), "It jumps over the dog.")
        out += metrics_triples(
            uris.synthesis_uri(q),
            "urn:graph:retrieval",
            model="m1",
            in_token=10,
            out_token=5,
            latency_ms=12.5,
        )
    return out


def doc_rag(sid: str, second: int) -> list[Triple]:
    q = uris.docrag_question_uri(sid)
    out = docrag_question_triples(q, "what is in page 1?", TIME.format(second))
    out += docrag_exploration_triples(
        uris.exploration_uri(q), q, [uris.chunk_uri(uris.page_uri(DOC, 1), 1)]
    )
    out += synthesis_triples(uris.synthesis_uri(q), uris.exploration_uri(q), "Page one text.")
    return out


def recent(sid: str) -> list[Triple]:
    """A GraphRAG trace started now."""
    return [
        t.model_copy(update={"o": t.o.model_copy(update={"v": now_iso()})})
        if "startedAtTime" in t.p.i
        else t
        for t in graph_rag(sid, 0)
    ]


def agent(sid: str, second: int, sub_sid: str) -> list[Triple]:
    """An agent whose first step ran a GraphRAG sub-trace."""
    a = uris.agent_session_uri(sid)
    i1, i2 = uris.agent_iteration_uri(a, 1), uris.agent_iteration_uri(a, 2)
    out = agent_session_triples(a, "tell me about the fox", TIME.format(second))
    out += agent_iteration_triples(
        i1, a, "look it up", "knowledge-query", {"question": "fox"}, "It jumps over the dog."
    )
    out += graph_rag(sub_sid, second, parent=i1)
    out += agent_iteration_triples(i2, i1, "enough", "none", {}, "ok")
    out += metrics_triples(i1, "urn:graph:retrieval", model="m1", in_token=3)
    out += agent_final_triples(uris.agent_final_uri(a), i2, "The fox jumps over the dog.")
    return out


def failed_agent(sid: str, second: int) -> list[Triple]:
    a = uris.agent_session_uri(sid)
    return agent_session_triples(a, "doomed", TIME.format(second)) + failure_triples(
        a, "urn:graph:retrieval", "LLM down"
    )


def subject_count(triples: list[Triple], subject: str) -> int:
    return sum(1 for t in triples if isinstance(t.s, IriTerm) and t.s.i == subject)


def written(path: Path, *batches: list[Triples], capacity: int = 32) -> Backend:
    """The test's store backend (``store_backend``: under ``path``, or its SPARQL server) with
    each batch written in turn, as the store's writer does."""
    stores = store_backend(path, capacity=capacity)
    for batch in batches:
        write_batch(stores, batch)
    return stores


def quads(handle: Handle) -> set[ox.Quad]:
    """Every quad of the collection, in every graph, as stored (either backend)."""
    return set(handle.store.quads_for_pattern(None, None, None, None))


def quad_count(handle: Handle) -> int:
    return len(quads(handle))


def handle_of(stores: Backend, user: str = "alice") -> Handle:
    """The open store of ``user``'s default collection (one the test wrote to)."""
    found = stores.get(user, "default")
    assert found is not None, f"nothing written for {user}"
    return found


def ox_store(handle: Handle) -> ox.Store:
    """The pyoxigraph store of an embedded handle (``Stores`` opens no other kind)."""
    assert isinstance(handle.store, ox.Store), f"not an embedded store: {handle.store!r}"
    return handle.store


def sqlite_index(handle: Handle) -> TraceIndex:
    """The sqlite trace index of an embedded handle (``Stores`` opens no other kind)."""
    assert isinstance(handle.index, TraceIndex), f"not an embedded index: {handle.index!r}"
    return handle.index


def deferred_seal(tmp_path: Path) -> Seal:
    """The embedded store's seal, signing ended traces in batches (its backlog), keyed under ``tmp_path``."""
    return open_seal(data_dir=str(tmp_path / "data"), defer=True)


def long_agent(sid: str, steps: int, sub_every: int) -> list[Triple]:
    """An agent trace of ``steps`` steps, every ``sub_every``-th running a GraphRAG sub-trace."""
    a = uris.agent_session_uri(sid)
    out = agent_session_triples(a, "walk", TIME.format(0))
    previous = a
    for n in range(1, steps + 1):
        step = uris.agent_iteration_uri(a, n)
        out += agent_iteration_triples(step, previous, f"think {n}", "search", {}, f"saw {n}")
        if n % sub_every == 0:
            out += graph_rag(f"{sid}-sub{n}", 1, parent=step)
        previous = step
    return out + agent_final_triples(uris.agent_final_uri(a), previous, "done")
