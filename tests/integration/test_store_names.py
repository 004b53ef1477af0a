"""D2 on the real broker and store: tenant directories are collision-free, and one tenant's
unwritable store never dead-letters another tenant's messages."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

from tests.conftest import RunningProcessors
from tests.support.poll import eventually
from tests.support.sparql_server import embedded_only
from tests.support.store import graph_rag, msg
from trustgraph_base.messaging import (
    EXPLAIN,
    TRIPLES_QUERY,
    TRIPLES_STORE,
    Bus,
    RequestClient,
    Topics,
)
from trustgraph_base.rdf.terms import LiteralTerm, Triple, iri
from trustgraph_base.schema import ExplainRequest, TriplesQueryRequest
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.store.backends.embedded.stores import Stores, safe_name
from trustgraph_flow.store.processor import StoreSettings, proc

VICTIM = "v" * 150  # percent-encoded longer than 100 characters: a hashed directory
ATTACKER = "h" + hashlib.sha256(VICTIM.encode()).hexdigest()  # what the old hashed name was


def test_no_literal_name_reaches_a_hashed_directory(tmp_path: Path) -> None:
    assert safe_name("u", VICTIM) != safe_name("u", ATTACKER)
    assert safe_name("u", VICTIM).startswith("uh-") and safe_name("u", ATTACKER).startswith("u-")
    names = ["a", "a/b", "%", "%25", ".", "..", "h-x", "-", VICTIM, ATTACKER, "é", "%C3%A9"]
    assert len({safe_name("u", n) for n in names}) == len(names)
    stores = Stores(tmp_path)
    assert stores.path(VICTIM, "default") != stores.path(ATTACKER, "default")


@embedded_only("an old store directory moved on disk")
def test_an_old_hashed_directory_is_moved_to_its_long_name(tmp_path: Path) -> None:
    legacy = tmp_path / f"u-{ATTACKER}" / "c-default"
    legacy.mkdir(parents=True)
    (legacy / "marker").write_text("victim's")
    stores = Stores(tmp_path)
    handle = stores.get(VICTIM, "default")
    assert handle is not None and handle.path is not None
    assert (handle.path / "marker").read_text() == "victim's"
    assert not legacy.exists() and stores.get(ATTACKER, "default") is None
    stores.close()


async def test_victim_and_attacker_stay_apart_across_restarts(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    store_settings = StoreSettings(**settings.model_dump())
    await processors.start(proc, store_settings)
    explain = RequestClient(bus, topics, EXPLAIN, "tester")

    async def listed(user: str) -> list[str]:
        resp = await explain.request(ExplainRequest(operation="list-traces", user=user), timeout=10)
        return [t.id.rsplit(":", 1)[1] for t in resp.traces]

    topic = topics.topic(TRIPLES_STORE)
    await asyncio.gather(
        bus.publish(topic, msg(graph_rag("victim1", 1), "v", user=VICTIM)),
        bus.publish(topic, msg(graph_rag("attacker1", 1), "a", user=ATTACKER)),
    )
    assert await eventually(lambda: listed(VICTIM), lambda v: v == ["victim1"]) == ["victim1"]
    assert await eventually(lambda: listed(ATTACKER), lambda v: v == ["attacker1"]) == ["attacker1"]
    await processors.stop_all()
    await processors.start(proc, store_settings)
    assert await eventually(lambda: listed(ATTACKER), lambda v: v == ["attacker1"]) == ["attacker1"]
    assert await listed(VICTIM) == ["victim1"]
    await explain.close()


@embedded_only("a collection's own directory made unwritable")
async def test_one_unwritable_store_dead_letters_only_its_own_messages(
    processors: RunningProcessors, settings: ProcessorSettings, bus: Bus, topics: Topics
) -> None:
    store_settings = StoreSettings(**settings.model_dump())
    blocked = Stores(Path(store_settings.data_dir) / "store").path("carol", "default")
    blocked.parent.mkdir(parents=True)
    blocked.write_text("not a directory")  # carol's store cannot be opened
    await processors.start(proc, store_settings)
    triples = RequestClient(bus, topics, TRIPLES_QUERY, "tester")
    topic = topics.topic(TRIPLES_STORE)
    dead = await bus.subscribe(topics.dead_letter(topic, f"store.{TRIPLES_STORE}"), "inspect")
    carol = msg(
        [Triple(s=iri("urn:carol"), p=iri("urn:p"), o=LiteralTerm(v="1"))], "c", user="carol"
    )
    dave = msg([Triple(s=iri("urn:dave"), p=iri("urn:p"), o=LiteralTerm(v="1"))], "d", user="dave")
    await asyncio.gather(bus.publish(topic, carol), bus.publish(topic, dave))

    async def found(user: str) -> list[str]:
        resp = await triples.request(
            TriplesQueryRequest(p=iri("urn:p"), g="*", user=user), timeout=10
        )
        return [t.s.i for t in resp.triples]  # type: ignore[union-attr]  # the subjects written are IRIs

    assert await eventually(lambda: found("dave"), lambda r: r == ["urn:dave"]) == ["urn:dave"]
    first_dead = await asyncio.wait_for(dead.receive(), 60)
    assert b'"carol"' in first_dead.data() and b"dave" not in first_dead.data()
    assert await found("dave") == ["urn:dave"] and await found("carol") == []
    await triples.close()
