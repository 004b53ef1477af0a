"""The RAG tests' world: a small document with its knowledge and provenance, and the stack.

Every processor is the real one: store, text completion (offline or the OpenAI stub),
embeddings (hashing backend), vectors and both RAG processors.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.conftest import RunningProcessors
from tests.support.poll import until
from trustgraph_base.messaging import (
    EMBEDDINGS,
    TRIPLES_QUERY,
    TRIPLES_STORE,
    VECTORS,
    Bus,
    RequestClient,
    Topics,
)
from trustgraph_base.provenance import (
    GRAPH_RETRIEVAL,
    GRAPH_SOURCE,
    RDFS,
    chunk_triples,
    document_triples,
    page_triples,
    subgraph_triples,
    uris,
)
from trustgraph_base.provenance.namespaces import TG_NS
from trustgraph_base.provenance.uris import trace_root
from trustgraph_base.rdf.terms import IriTerm, Term, Triple, iri, lit
from trustgraph_base.schema import (
    EmbeddingsRequest,
    Metadata,
    Triples,
    TriplesQueryRequest,
    VectorItem,
    VectorRequest,
)
from trustgraph_base.settings import ProcessorSettings

__test__ = False

USER, COLLECTION = "alice", "notes"
DOC = "urn:trustgraph:doc:fox"
P1, P2 = uris.page_uri(DOC, 1), uris.page_uri(DOC, 2)
C1, C2 = uris.chunk_uri(P1, 0), uris.chunk_uri(P2, 0)
CHUNKS = {
    C1: "The quick brown fox jumps over the lazy dog. The fox lives in the forest.",
    C2: "Cats chase foxes at night. The cat is black.",
}
E = uris.entity_uri
R = uris.relation_uri
EDGES: dict[str, list[tuple[IriTerm, IriTerm, Term]]] = {
    C1: [
        (iri(E("fox")), iri(R("jumps over")), iri(E("dog"))),
        (iri(E("fox")), iri(R("lives in")), iri(E("forest"))),
    ],
    C2: [
        (iri(E("cat")), iri(R("chases")), iri(E("fox"))),
        (iri(E("cat")), iri(R("has colour")), lit("black")),
    ],
}
LABELS = ["fox", "dog", "forest", "cat"]
RELATIONS = ["jumps over", "lives in", "chases", "has colour"]


def knowledge() -> list[Triple]:
    """The extracted edges and their labels, in the default graph."""
    out = [Triple(s=s, p=p, o=o) for edges in EDGES.values() for s, p, o in edges]
    out += [Triple(s=iri(E(x)), p=RDFS.label, o=lit(x)) for x in LABELS]
    out += [Triple(s=iri(R(x)), p=RDFS.label, o=lit(x)) for x in RELATIONS]
    return out


def provenance() -> list[Triple]:
    """Document → pages → chunks → subgraphs, in urn:graph:source (real builders)."""
    out = document_triples(DOC, "Fox notes", "application/pdf")
    for n, (page, chunk) in enumerate([(P1, C1), (P2, C2)], start=1):
        out += page_triples(page, DOC, n, uris.activity_uri(page, "decode"))
        text = CHUNKS[chunk]
        out += chunk_triples(chunk, page, 0, 0, len(text), uris.activity_uri(chunk, "chunk"))
        out += subgraph_triples(
            uris.subgraph_uri(chunk), chunk, EDGES[chunk], uris.activity_uri(chunk, "extract")
        )
    return out


@dataclass
class World:
    """Clients of the running stack, for one test (one client per service, closed at the end)."""

    bus: Bus
    topics: Topics
    clients: dict[str, RequestClient[Any, Any]] = field(default_factory=dict)

    def client(self, spec: Any) -> RequestClient[Any, Any]:
        if spec.name not in self.clients:
            self.clients[spec.name] = RequestClient(
                self.bus, self.topics, spec, f"tester-{spec.name}"
            )
        return self.clients[spec.name]

    async def close(self) -> None:
        for c in self.clients.values():
            await c.close()

    async def query(self, **pattern: Any) -> list[Triple]:
        req = TriplesQueryRequest(user=USER, collection=COLLECTION, **pattern)
        return list((await self.client(TRIPLES_QUERY).request(req, timeout=10)).triples)

    async def seed(self) -> None:
        """Load the document's knowledge, provenance and vectors, and wait until stored."""
        expected = knowledge() + provenance()
        meta = Metadata(id=DOC, user=USER, collection=COLLECTION)
        await self.bus.publish(
            self.topics.topic(TRIPLES_STORE), Triples(metadata=meta, triples=expected)
        )
        vectors = self.client(VECTORS)
        texts = {**CHUNKS, **{E(x): x for x in LABELS}}
        req = EmbeddingsRequest(texts=list(texts.values()))
        found = (await self.client(EMBEDDINGS).request(req, timeout=10)).vectors
        items = [
            VectorItem(id=i, vector=v, text=t)
            for (i, t), v in zip(texts.items(), found, strict=True)
        ]
        for kind, subset in (("chunk", items[: len(CHUNKS)]), ("entity", items[len(CHUNKS) :])):
            await vectors.request(
                VectorRequest(
                    operation="upsert", kind=kind, items=subset, user=USER, collection=COLLECTION
                ),
                timeout=10,
            )

        async def stored() -> bool:
            return len(await self.query(g=GRAPH_SOURCE)) >= len(provenance())

        await until(stored)

    async def trace(self, question: str) -> list[Triple]:
        """Every triple of a trace (its stages are named under the question URI, a GraphRAG
        grounding by its session id: ``uris.trace_root``)."""
        found = await self.query(g=GRAPH_RETRIEVAL)
        return [
            t
            for t in found
            if isinstance(t.s, IriTerm)
            and (t.s.i.startswith(question) or trace_root(t.s.i) == question)
        ]


async def start_stack(
    processors: RunningProcessors,
    settings: ProcessorSettings,
    llm_url: str = "",
    rag_timeout: float = 10.0,
) -> None:
    """Store, configuration, text completion, embeddings, vectors and both RAG processors."""
    from trustgraph_flow.config.processor import Settings as ConfigSettings
    from trustgraph_flow.config.processor import proc as config
    from trustgraph_flow.document_rag.processor import proc as docrag
    from trustgraph_flow.embeddings.processor import Settings as EmbeddingsSettings
    from trustgraph_flow.embeddings.processor import proc as embeddings
    from trustgraph_flow.graph_rag.processor import proc as graphrag
    from trustgraph_flow.llm.processor import Settings as LlmSettings
    from trustgraph_flow.llm.processor import proc as llm
    from trustgraph_flow.rag_common import RagSettings
    from trustgraph_flow.store.processor import StoreSettings
    from trustgraph_flow.store.processor import proc as store
    from trustgraph_flow.vectors.processor import Settings as VectorsSettings
    from trustgraph_flow.vectors.processor import proc as vectors

    base = settings.model_dump()
    await processors.start(store, StoreSettings(**base))
    await processors.start(config, ConfigSettings(**base))
    await processors.start(
        llm, LlmSettings(**base, llm_base_url=llm_url, llm_retries=1, llm_backoff=0.01)
    )
    await processors.start(embeddings, EmbeddingsSettings(**base))
    await processors.start(vectors, VectorsSettings(**base))
    rag = RagSettings(**{**base, "request_timeout": rag_timeout})
    await processors.start(graphrag, rag)
    await processors.start(docrag, rag)


async def stored_trace(
    world: World, question: str, last: str = "/synthesis/verification"
) -> list[Triple]:
    """The stored trace once its last stage is in (a stage is written in one transaction).

    ``last`` is the suffix of the last stage written (an answered RAG trace's: the
    verification, after the synthesis), or "error" for a failed trace.
    """
    found: list[Triple] = []

    async def complete() -> bool:
        found[:] = await world.trace(question)
        if last == "error":
            return any(t.p.i == TG_NS + "error" for t in found)
        return any(isinstance(t.s, IriTerm) and t.s.i == question + last for t in found)

    await until(complete)
    return found


# beside SPEC's: the stage metrics (metrics_triples) and the prompt (see prompts)
METRICS = {
    "llmModel",
    "embeddingModel",
    "inToken",
    "outToken",
    "llmDurationMs",
    "latencyMs",
    "prompt",
}


def spo(triples: list[Triple]) -> set[tuple[str, str, str]]:
    """Triples as comparable keys, without the per-stage cost figures."""
    from trustgraph_base.provenance.namespaces import TG_NS
    from trustgraph_base.rdf.terms import term_key

    return {
        (term_key(t.s), term_key(t.p), term_key(t.o))
        for t in triples
        if t.p.i.removeprefix(TG_NS) not in METRICS and "/prompt/" not in term_key(t.s)
    }


def prompts(triples: list[Triple]) -> dict[str, str]:
    """Each stage → the prompt digest it names (``tg:prompt``, docs/provenance.md), as
    ``ID DIGEST``."""
    from trustgraph_base.provenance.namespaces import TG
    from trustgraph_base.rdf.terms import LiteralTerm

    facts: dict[str, dict[str, str]] = {}
    for t in triples:
        if isinstance(t.s, IriTerm) and isinstance(t.o, LiteralTerm):
            facts.setdefault(t.s.i, {})[t.p.i] = t.o.v
    return {
        t.s.i: f"{facts[t.o.i][TG.promptId.i]} {facts[t.o.i][TG.promptDigest.i]}"
        for t in triples
        if t.p == TG.prompt and isinstance(t.s, IriTerm) and isinstance(t.o, IriTerm)
    }


def costs(triples: list[Triple], stage: str) -> dict[str, str]:
    """The cost figures recorded on one stage."""
    from trustgraph_base.provenance.namespaces import TG_NS
    from trustgraph_base.rdf.terms import LiteralTerm

    return {
        t.p.i.removeprefix(TG_NS): t.o.v
        for t in triples
        if isinstance(t.s, IriTerm)
        and t.s.i == stage
        and isinstance(t.o, LiteralTerm)
        and t.p.i.removeprefix(TG_NS) in METRICS
    }


def by_subject(trace: list[Triple], prefix: str) -> dict[str, dict[str, Term]]:
    """The properties (predicate IRI to object) of each subject in ``trace`` under ``prefix``."""
    found: dict[str, dict[str, Term]] = {}
    for t in trace:
        if isinstance(t.s, IriTerm) and t.s.i.startswith(prefix):
            found.setdefault(t.s.i, {})[t.p.i] = t.o
    return found


@pytest.fixture(name="world")
async def world_fixture(bus: Bus, topics: Topics) -> AsyncIterator[World]:
    """The ``world`` fixture (import ``world_fixture`` into a test module to use it)."""
    w = World(bus, topics)
    try:
        yield w
    finally:
        await w.close()


def verification_of(trace: list[Triple], synthesis: str) -> tuple[list[Triple], dict[str, str]]:
    """The trace without its verification stage, and what that stage says: the answer's
    verdict (``answer``), each claim's (``claim{n}``) and the method."""
    from trustgraph_base.provenance import TG
    from trustgraph_base.provenance.verification import VERIFIER
    from trustgraph_base.rdf.terms import LiteralTerm

    act = synthesis + "/verification"

    def checked(t: Triple) -> bool:
        s = t.s.i if isinstance(t.s, IriTerm) else ""
        return s in (act, VERIFIER, synthesis + "/abstention") or s.endswith("/assessment")

    said: dict[str, str] = {}
    for t in trace:
        if not checked(t) or not isinstance(t.o, LiteralTerm) or not isinstance(t.s, IriTerm):
            continue
        if t.p == TG.answerVerdict:
            said["answer"] = t.o.v
        elif t.p == TG.method:
            said["method"] = t.o.v
        elif t.p == TG.verdict:
            said[t.s.i.removeprefix(synthesis + "/").removesuffix("/assessment")] = t.o.v
        elif t.p == TG.content:
            said["abstention"] = t.o.v
    return [t for t in trace if not checked(t)], said
