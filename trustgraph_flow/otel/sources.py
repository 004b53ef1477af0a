"""Where a GraphRAG trace's selected edges were stated, asked of the store for the export.

The trace's messages name the edges a GraphRAG focus selected, not the chunks, pages and
documents they were extracted from (those are in the source graph, written at ingestion), so
the exporter asks the explain service for the trace with its provenance once, and each edge
becomes a retrieved document of the exploration's span: its id the focus edge's URI, its
metadata the edge, the reasoning and where it was stated.
"""

from __future__ import annotations

import asyncio
import logging

from trustgraph_base.errors import BrokerUnavailable, ErrorType, RequestTimeout, ServiceError
from trustgraph_base.messaging import RequestClient
from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.rdf.terms import Term
from trustgraph_base.schema.explain import ExplainRequest, ExplainResponse
from trustgraph_flow.otel.trace import Trace

log = logging.getLogger(__name__)

Explain = RequestClient[ExplainRequest, ExplainResponse]
# Seconds before each ask: the store may hold the trace's question and not its focus yet (a
# trace it holds none of it waits for itself, up to its trace_wait: not asked again).
TRIES = (0.0, 1.0)


ASKING = 4  # traces asked about at once (each may wait; a user may have 8 reads waiting)


async def all_edge_sources(client: Explain, traces: list[Trace]) -> None:
    """``edge_sources`` of each of ``traces``, ``ASKING`` at a time: the exporter sends the
    ready traces together, so one trace the store makes wait holds no other user's."""
    asking = asyncio.Semaphore(ASKING)

    async def one(trace: Trace) -> None:
        async with asking:
            await edge_sources(client, trace)

    await asyncio.gather(*(one(t) for t in traces))


async def edge_sources(client: Explain, trace: Trace) -> None:
    """Fill ``trace.edges`` for each GraphRAG question of ``trace`` (none if the store cannot
    say: the spans then go without them)."""
    if not trace.user:
        return
    for q in trace.questions(TG.GraphRagQuestion.i):
        if not trace.facts.get(q + "/focus", {}).get(TG.selectedEdge.i):
            continue
        for delay in TRIES:
            await asyncio.sleep(delay)
            docs = await _edges(client, trace, q)
            if docs:
                trace.edges[q + "/exploration"] = docs
            if docs or docs is None:
                break


async def _edges(client: Explain, trace: Trace, q: str) -> list[dict[str, object]] | None:
    """The question's edges with their sources ([]: none yet, or the store cannot say now;
    None: the store has no such trace, having waited its ``trace_wait`` for it to arrive, so
    asking again would only wait again while every other trace's export waits behind it)."""
    req = ExplainRequest(
        operation="get-trace",
        id=q,
        include_provenance=True,
        user=trace.user,
        collection=trace.collection or "default",
    )
    try:
        view = (await client.request(req, timeout=10)).trace
    except (ServiceError, RequestTimeout, BrokerUnavailable) as exc:
        log.info("no edge sources for %s: %s", q, exc)
        gone = isinstance(exc, ServiceError) and exc.type == ErrorType.NOT_FOUND
        return None if gone else []
    out: list[dict[str, object]] = []
    for edge in view.edges if view is not None else []:
        doc: dict[str, object] = {
            "id": edge.uri or "",
            "score": None,
            "edge": " ".join(
                label or _text(term)
                for label, term in (
                    (edge.s_label, edge.s),
                    (edge.p_label, edge.p),
                    (edge.o_label, edge.o),
                )
            ),
            "reasoning": edge.reasoning,
        }
        if edge.sources:
            src = edge.sources[0]
            doc |= {"chunk": src.chunk, "page": src.page_number, "document": src.document}
            doc |= {"title": src.title}
        out.append(doc)
    return out


def _text(term: Term) -> str:
    return str(getattr(term, "i", None) or getattr(term, "v", None) or "")
