"""The answer documents of traces: text a trace holds, read as a librarian document.

TrustGraph's tools fetch an answer (or an agent tool's result) "from the librarian", by the document a trace entity
names with ``tg:document``. Our traces keep that text as a literal (SPEC.md: ``tg:content``,
``tg:answer``); the document is that literal, found through the ``tg:document`` link in the
store, not a second copy (docs/provenance.md).
"""

from __future__ import annotations

from typing import Any

from trustgraph_base.errors import RequestTimeout, ServiceError
from trustgraph_base.messaging import TRIPLES_QUERY, Context
from trustgraph_base.provenance import GRAPH_RETRIEVAL, PROV, RDF, TG
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple, check_iri
from trustgraph_base.schema import TriplesQueryRequest
from trustgraph_flow.librarian.store import Scope

_TEXT = (TG.content.i, TG.answer.i, TG.observation.i)  # the last: a tool call's Observation


async def trace_text(ctx: Context[Any], scope: Scope, document: str) -> str | None:
    """The text of the trace entity whose ``tg:document`` is ``document`` (None: there is none)."""
    try:
        check_iri(document)
    except ValueError:
        return None
    try:
        linked = await _query(ctx, scope, p=TG.document, o=IriTerm(i=document), limit=1)
        if not linked or not isinstance(linked[0].s, IriTerm):
            return None
        entity = linked[0].s
        props = await _query(ctx, scope, s=entity, limit=200)
        for want in _TEXT:
            for t in props:
                if t.p.i == want and isinstance(t.o, LiteralTerm):
                    return t.o.v
        if any(
            t.p.i == RDF.type.i and isinstance(t.o, IriTerm) and t.o.i == TG.Observation.i
            for t in props
        ):
            # an agent Observation: its text is the tg:observation of the analysis it derives from
            for t in props:
                if t.p.i == PROV.wasDerivedFrom.i and isinstance(t.o, IriTerm):
                    analysis = await _query(ctx, scope, s=t.o, p=TG.observation, limit=1)
                    if analysis and isinstance(analysis[0].o, LiteralTerm):
                        return analysis[0].o.v
    except (ServiceError, RequestTimeout):
        return None
    return None


async def _query(ctx: Context[Any], scope: Scope, **pattern: Any) -> list[Triple]:
    req = TriplesQueryRequest(
        g=GRAPH_RETRIEVAL, user=scope.user, collection=scope.collection, **pattern
    )
    reply = await ctx.client(TRIPLES_QUERY).request(req, timeout=ctx.settings.request_timeout)
    return list(reply.triples)
