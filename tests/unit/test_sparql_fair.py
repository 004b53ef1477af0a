"""SPARQL's turns (``FairGate``): a user holds at most ``per_user`` places, waiting users take
turns, and a wait that ends unserved (time limit, cancelled request) keeps no place. Also the
size a check reports, and what a SPARQL server is not sent (issue 36 item 5)."""

from __future__ import annotations

import asyncio

import pytest

from trustgraph_base.errors import ServiceError
from trustgraph_flow.store.sparql.check import SERVER_DEPTH, Checked, fits_server, inspect_query
from trustgraph_flow.store.sparql.fair import FairGate


async def test_one_user_holds_no_more_than_their_share() -> None:
    gate = FairGate(2)  # per user: 1
    await gate.acquire("mallory", 1.0)
    with pytest.raises(TimeoutError):
        await gate.acquire("mallory", 0.05)  # her second waits: the other place is not hers
    await asyncio.wait_for(gate.acquire("alice", 1.0), 0.5)  # alice is let in at once
    assert (gate.held("mallory"), gate.held("alice")) == (1, 1)


async def test_waiting_users_take_turns() -> None:
    gate = FairGate(1)
    await gate.acquire("mallory", 1.0)
    order: list[str] = []

    async def wait(user: str) -> None:
        await gate.acquire(user, 5.0)
        order.append(user)

    waits = [asyncio.ensure_future(wait(u)) for u in ("mallory", "mallory", "alice", "bob")]
    await asyncio.sleep(0.01)  # all four are in line, mallory's two first
    for _ in range(4):
        gate.release(order[-1] if order else "mallory")
        await asyncio.sleep(0.01)
    await asyncio.gather(*waits)
    assert order == ["mallory", "alice", "bob", "mallory"]


async def test_a_wait_that_ends_unserved_keeps_no_place() -> None:
    gate = FairGate(1)
    await gate.acquire("alice", 1.0)
    late = asyncio.ensure_future(gate.acquire("bob", 5.0))
    await asyncio.sleep(0.01)
    late.cancel()  # the request went away while it waited
    with pytest.raises(asyncio.CancelledError):
        await late
    with pytest.raises(TimeoutError):
        await gate.acquire("carol", 0.01)
    gate.release("alice")
    await asyncio.wait_for(gate.acquire("dave", 1.0), 0.5)  # the freed place was not lost to bob
    assert (gate.held("bob"), gate.held("carol"), gate.held("dave")) == (0, 0, 1)


def test_the_check_measures_a_query() -> None:
    text = "ASK { <urn:a> <urn:p> 1 . ?x <urn:q> ?y ; <urn:r> ?z, ?w FILTER(?y) OPTIONAL { ?a ?b ?c } }"
    assert inspect_query(text) == Checked("ask", size=7, depth=2)
    patterns = " ".join(f"<urn:s{i}> <urn:p> {i} ." for i in range(50))
    assert inspect_query(f"ASK {{ {patterns} }}").size == 50


def test_a_server_is_not_sent_what_it_cannot_parse() -> None:
    fits_server(Checked("ask", 500, 3), 500)
    fits_server(Checked("ask", 5000, 3), 0)  # no bound set
    with pytest.raises(ServiceError) as big:
        fits_server(Checked("select", 501, 3), 500)
    assert big.value.type == "sparql-unsupported" and "--server-max-patterns" in big.value.message
    with pytest.raises(ServiceError) as deep:
        fits_server(Checked("select", 10, SERVER_DEPTH + 1), 500)
    assert deep.value.type == "sparql-unsupported"
