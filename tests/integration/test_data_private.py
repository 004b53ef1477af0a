"""D13: what a processor writes under its data folder is its owner's alone (0600 files, 0700 folders)."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.support.launcher import start_store
from tests.support.sparql_server import embedded_only
from tests.support.store import msg
from trustgraph_base.messaging import SPARQL, TRIPLES_STORE, Bus, RequestClient, Topics
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import SparqlQueryRequest


async def stored(client: RequestClient) -> int:  # type: ignore[type-arg]
    """The collection's triple count, by SPARQL (which writes a snapshot under the data folder too)."""
    query = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
    resp = await client.request(SparqlQueryRequest(query=query, user="alice"), timeout=20)
    return int(resp.bindings[0].values[0].v)


@embedded_only("the files and folders it writes under the data folder")
async def test_store_files_are_private(
    pulsar_url: str, prefix: str, bus: Bus, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    proc = await start_store(pulsar_url, prefix, data, tmp_path / "ready")
    client = RequestClient(bus, Topics(prefix), SPARQL, "perm")
    try:
        await bus.publish(
            Topics(prefix).topic(TRIPLES_STORE),
            msg([Triple(s=iri("urn:a"), p=iri("urn:p"), o=lit(1))], "m"),
        )
        for _ in range(200):
            if await stored(client) == 1:
                break
    finally:
        proc.terminate()
        await proc.wait()
        await client.close()
    made = [p for p in data.rglob("*")]
    assert any(p.name == "traces.sqlite" for p in made)
    loose = [
        (str(p.relative_to(data)), oct(stat.S_IMODE(p.stat().st_mode)))
        for p in made
        if stat.S_IMODE(p.stat().st_mode) & 0o077
    ]
    assert loose == []
