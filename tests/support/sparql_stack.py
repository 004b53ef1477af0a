"""The stack the SPARQL client tests query: alice's default collection holds a paged document,
the entities' labels, the fox edge and GraphRAG trace ``g1``; her ``research`` collection the
fox's and the dog's labels only."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from tests.support.poll import eventually
from tests.support.stack import ADMIN, Stack
from tests.support.store import EDGE_FOX, document, graph_rag, labels, msg
from trustgraph_base.messaging import TRIPLES_STORE, Processor
from trustgraph_base.rdf.terms import Triple
from trustgraph_flow.librarian.processor import proc as librarian
from trustgraph_flow.store.processor import proc as store


@asynccontextmanager
async def seeded_stack(
    pulsar_url: str, prefix: str, tmp_path: Path, **gateway: Any
) -> AsyncIterator[Stack]:
    processors: list[Processor[Any, Any]] = [store, librarian]
    async with Stack(
        pulsar_url, prefix, processors, data_dir=tmp_path, token=ADMIN, gateway=gateway
    ) as running:
        fact = Triple(s=EDGE_FOX[0], p=EDGE_FOX[1], o=EDGE_FOX[2])
        await running.publish(
            TRIPLES_STORE, msg(document() + labels() + [fact] + graph_rag("g1", 1))
        )
        await running.publish(TRIPLES_STORE, msg(labels()[:2], "r", collection="research"))

        async def listed() -> Any:
            return await running.cli("tg-list-explain-traces", "-U", "alice", "-t", ADMIN)

        def shown(r: Any) -> bool:
            return "g1" in r.stdout

        await eventually(listed, shown)
        yield running
