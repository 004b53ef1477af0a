"""The store processor: writes the triples-store and explain-store topics and serves
triples, SPARQL and explain.

The wiring only: each topic's handler is in ``service/`` (``intake``, ``queries``,
``operations``), the backends under ``backends/``, what readers are shown under ``views/``
(docs/design.md, "The store's map"). Writes (batches, deletions) run on one writer thread;
reads on a small pool of reader threads, so a slow query never delays a write; SPARQL in
killable worker processes of its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from trustgraph_base.messaging import (
    EXPLAIN,
    EXPLAIN_STORE_INTAKE,
    SPARQL,
    TRIPLES_QUERY,
    TRIPLES_STORE_INTAKE,
    Context,
    Kept,
    Processor,
)
from trustgraph_base.schema.core import StoreTriples
from trustgraph_base.schema.explain import ExplainRequest, ExplainResponse
from trustgraph_base.schema.store import (
    SparqlQueryRequest,
    SparqlQueryResponse,
    TriplesQueryRequest,
    TriplesQueryResponse,
)
from trustgraph_flow.store.service import intake, operations, queries
from trustgraph_flow.store.service.lifespan import running
from trustgraph_flow.store.service.settings import StoreSettings
from trustgraph_flow.store.service.state import Ctx, State

__all__ = [  # what callers import from here (tests start the processor with its settings)
    "Ctx",
    "State",
    "StoreSettings",
    "explain_service",
    "main",
    "proc",
    "sparql",
    "store_triples",
    "triples",
]

proc: Processor[StoreSettings, State] = Processor("store", StoreSettings)


@proc.lifespan
async def open_stores(ctx: Context[StoreSettings]) -> AsyncIterator[State]:
    """The backend (``store_uri``: a SPARQL server; else embedded), its threads and clocks."""
    async with running(ctx.settings) as state:
        yield state


@proc.batch_consumer(TRIPLES_STORE_INTAKE, max_batch=4096, max_wait=0.02, max_linger=0.5)
@proc.batch_consumer(EXPLAIN_STORE_INTAKE, max_batch=4096, max_wait=0.02, max_linger=0.5)
async def store_triples(
    batch: list[StoreTriples], ctx: Ctx
) -> list[StoreTriples] | Kept[StoreTriples]:
    """Committed before the runtime acks the batch; what is returned is redelivered; what a
    server that is down would hold is kept (acked once written). Both topics, each on a
    subscription of its own and written alike (the one writer thread): a question's trace
    on explain-store waits for one batch of a load at most, not its backlog on
    triples-store."""
    return await intake.store_triples(batch, ctx)


@proc.service(TRIPLES_QUERY)
async def triples(req: TriplesQueryRequest, ctx: Ctx) -> AsyncIterator[TriplesQueryResponse]:
    """Pattern matches, in one reply or (``streaming``) several."""
    async for reply in queries.triples(req, ctx):
        yield reply


@proc.service(SPARQL)
async def sparql(req: SparqlQueryRequest, ctx: Ctx) -> SparqlQueryResponse:
    """Read-only SPARQL, checked and stopped at ``sparql_timeout``; users take turns."""
    return await queries.sparql(req, ctx)


@proc.service(EXPLAIN)
async def explain_service(req: ExplainRequest, ctx: Ctx) -> AsyncIterator[ExplainResponse]:
    """Trace lists and views, lineage, exports, deletions, verification."""
    async for reply in operations.explain_service(req, ctx):
        yield reply


def main() -> None:
    """Console-script entry point (tg-proc-store)."""
    proc.main()


if __name__ == "__main__":
    main()
