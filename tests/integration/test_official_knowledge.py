"""Knowledge cores through the official client (trustgraph-cli 2.11.1) against our gateway
with auth on: ``tg-put-kg-core`` stores a core per user, ``tg-show-kg-cores`` /
``tg-get-kg-core`` give it back to its user only, ``tg-load-kg-core`` writes its triples and
entity vectors into a collection, ``tg-unload-kg-core`` takes them out again (the facts
a document holds too stay) and
``tg-delete-kg-core`` forgets it (docs/gateway.md, "Knowledge cores")."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.support.official import official_bin
from tests.support.poll import eventually
from tests.support.stack import ADMIN, CliResult, Stack, create_key, run_argv
from trustgraph_base.messaging import TRIPLES_STORE, Processor
from trustgraph_base.provenance import TG
from trustgraph_base.provenance.extraction import subgraph_triples
from trustgraph_base.rdf.terms import IriTerm
from trustgraph_base.schema import Metadata, Triples
from trustgraph_flow.embeddings import hashing
from trustgraph_flow.embeddings import processor as embeddings
from trustgraph_flow.librarian import processor as librarian
from trustgraph_flow.store import processor as store
from trustgraph_flow.vectors import processor as vectors

pytestmark = pytest.mark.timeout(300)

ZORBLAT = "urn:test:zorblat"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"

# A core file as tg-get-kg-core writes one (msgpack records), made with the official client's
# own msgpack (our venv does not carry it) from the JSON records given on stdin.
WRITE_CORE = """
import json, sys, msgpack
with open(sys.argv[1], "wb") as f:
    for record in json.load(sys.stdin):
        f.write(msgpack.packb(record, use_bin_type=True))
"""
READ_CORE = """
import json, sys, msgpack
with open(sys.argv[1], "rb") as f:
    print(json.dumps(list(msgpack.Unpacker(f, raw=False))))
"""


def term(iri: str) -> dict[str, str]:
    return {"t": "i", "i": iri}


def core_records(graph: str | None = None, vector: list[Any] | None = None) -> list[Any]:
    """A kg core: Zorblat's label and orbit, and Zorblat's entity vector (the default
    embeddings of its name, so a query for 'Zorblat' finds it)."""
    label: dict[str, Any] = {"s": term(ZORBLAT), "p": term(LABEL), "o": {"t": "l", "v": "Zorblat"}}
    if graph is not None:
        label["g"] = graph
    orbit = {"s": term(ZORBLAT), "p": term("urn:test:orbits"), "o": term("urn:test:quuxar")}
    meta = {"i": "urn:test:moons", "m": "urn:test:moons", "c": "default"}
    given = (
        vector
        if vector is not None
        else hashing.embed(["Zorblat"], hashing.DEFAULT_DIM)[0].tolist()
    )
    return [
        ["t", {"m": meta, "t": [label, orbit]}],
        ["ge", {"m": meta, "e": [{"e": term(ZORBLAT), "v": given}]}],
    ]


class Keyed(NamedTuple):
    stack: Stack
    bin: Path
    alice: str
    bob: str
    other: str  # alice's, limited to collection "other"

    async def run(self, key: str, name: str, *args: str) -> CliResult:
        env = {"TRUSTGRAPH_URL": self.stack.url, "TRUSTGRAPH_TOKEN": key}
        return await run_argv([str(self.bin / name), *args], env=env, unset=("VIRTUAL_ENV",))

    async def python(self, script: str, *args: str, stdin: bytes | None = None) -> CliResult:
        return await run_argv([str(self.bin / "python"), "-c", script, *args], stdin=stdin)


@pytest.fixture
async def keyed(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Keyed]:
    bin_dir = official_bin()
    procs: list[Processor[Any, Any]] = [store.proc, embeddings.proc, vectors.proc, librarian.proc]
    async with Stack(pulsar_url, prefix, procs, data_dir=tmp_path, token=ADMIN) as stack:
        alice, bob = await create_key(stack, "alice"), await create_key(stack, "bob")
        other = await create_key(stack, "alice", "--collection", "other")
        yield Keyed(stack, bin_dir, alice, bob, other)


async def write_core(k: Keyed, path: Path, records: list[Any]) -> None:
    made = await k.python(WRITE_CORE, str(path), stdin=json.dumps(records).encode())
    assert made.code == 0, made.stderr


async def test_a_core_is_put_shown_loaded_unloaded_and_deleted_for_its_user_only(
    keyed: Keyed, tmp_path: Path
) -> None:
    k, core = keyed, tmp_path / "moons.core"
    await write_core(k, core, core_records())
    put = await k.run(k.alice, "tg-put-kg-core", "--id", "moons", "-i", str(core))
    assert "Put: 1 triple, 1 GE" in put.stdout and "Exception" not in put.stdout, put
    assert (await k.run(k.alice, "tg-show-kg-cores")).stdout.split() == ["moons"]
    assert "No knowledge cores." in (await k.run(k.bob, "tg-show-kg-cores")).stdout

    # given back as it was put, to its user only
    out = tmp_path / "got.core"
    got = await k.run(k.alice, "tg-get-kg-core", "--id", "moons", "-o", str(out))
    assert "Got: 1 triple, 1 GE" in got.stdout, got
    back = json.loads((await k.python(READ_CORE, str(out))).stdout)
    assert [r[1]["t"] for r in back if r[0] == "t"] == [core_records()[0][1]["t"]]
    assert [r[1]["e"][0]["e"] for r in back if r[0] == "ge"] == [term(ZORBLAT)]
    theirs = await k.run(k.bob, "tg-get-kg-core", "--id", "moons", "-o", str(tmp_path / "b"))
    assert "no knowledge core 'moons'" in theirs.stdout and "Got:" not in theirs.stdout, theirs
    stolen = await k.run(k.bob, "tg-load-kg-core", "--id", "moons", "-C", "moons")
    assert "no knowledge core 'moons'" in stolen.stdout, stolen

    # loaded into a collection: its triples in the graph, its entity found by its vector
    limited = await k.run(k.other, "tg-load-kg-core", "--id", "moons", "-C", "moons")
    assert "may not use collection 'moons'" in limited.stdout, limited
    loaded = await k.run(k.alice, "tg-load-kg-core", "--id", "moons", "-C", "moons")
    assert loaded.code == 0 and "Exception" not in loaded.stdout, loaded

    async def graph() -> CliResult:
        return await k.run(k.alice, "tg-show-graph", "-C", "moons")

    shown = await eventually(graph, lambda r: "urn:test:quuxar" in r.stdout)
    assert "Zorblat" in shown.stdout

    async def found(key: str) -> CliResult:
        return await k.run(key, "tg-invoke-graph-embeddings", "-c", "moons", "Zorblat")

    assert ZORBLAT in (await found(k.alice)).stdout
    assert ZORBLAT not in (await found(k.bob)).stdout  # bob's "moons" is his own, empty

    # unloaded: the vectors it wrote are gone (and its facts: the next test)
    unloaded = await k.run(k.alice, "tg-unload-kg-core", "--id", "moons")
    assert unloaded.code == 0 and "Exception" not in unloaded.stdout, unloaded
    assert ZORBLAT not in (await found(k.alice)).stdout
    again = await k.run(k.alice, "tg-unload-kg-core", "--id", "moons")
    assert "is not loaded" in again.stdout, again

    deleted = await k.run(k.alice, "tg-delete-kg-core", "--id", "moons")
    assert deleted.code == 0 and "Exception" not in deleted.stdout, deleted
    assert "No knowledge cores." in (await k.run(k.alice, "tg-show-kg-cores")).stdout
    gone = await k.run(k.alice, "tg-delete-kg-core", "--id", "moons")
    assert "no knowledge core 'moons'" in gone.stdout, gone


async def test_unloading_a_core_removes_its_facts_but_not_a_documents(
    keyed: Keyed, tmp_path: Path
) -> None:
    """Unloaded, the core's facts go with its provenance, except one that a document's
    extraction holds too (Zorblat's orbit, extracted from a chunk: its subgraph holds it)."""
    k, core = keyed, tmp_path / "moons.core"
    await write_core(k, core, core_records())
    put = await k.run(k.alice, "tg-put-kg-core", "--id", "moons", "-i", str(core))
    assert put.code == 0 and "Exception" not in put.stdout, put
    loaded = await k.run(k.alice, "tg-load-kg-core", "--id", "moons", "-C", "moons")
    assert loaded.code == 0 and "Exception" not in loaded.stdout, loaded
    orbit = (IriTerm(i=ZORBLAT), IriTerm(i="urn:test:orbits"), IriTerm(i="urn:test:quuxar"))
    doc = "urn:trustgraph:doc:almanac"
    extracted = subgraph_triples(f"{doc}/p1/c0/subgraph", f"{doc}/p1/c0", [orbit], f"{doc}/x")
    meta = Metadata(id=doc, user="alice", collection="moons")
    await k.stack.publish(TRIPLES_STORE, Triples(metadata=meta, triples=extracted))

    async def query(*args: str) -> CliResult:
        env = {"TRUSTGRAPH_TOKEN": k.alice}
        return await k.stack.cli("tg-query-triples", "-C", "moons", *args, env=env)

    core_node = "<urn:trustgraph:core:moons>"
    held = await eventually(
        lambda: query("-g", "urn:graph:source", "-p", TG.contains.i),
        lambda r: r.stdout.count("urn:test:quuxar") == 2,  # by the core and by the chunk
    )
    assert core_node in held.stdout and "Zorblat" in held.stdout, held

    unloaded = await k.run(k.alice, "tg-unload-kg-core", "--id", "moons")
    assert unloaded.code == 0 and "Exception" not in unloaded.stdout, unloaded
    facts = (await query("-g", "")).stdout
    assert "urn:test:quuxar" in facts and "Zorblat" not in facts, facts
    assert core_node not in (await query("-g", "urn:graph:source")).stdout
    # loaded again and unloaded, the document's fact still stays
    assert (await k.run(k.alice, "tg-load-kg-core", "--id", "moons", "-C", "moons")).code == 0
    await eventually(lambda: query("-g", ""), lambda r: "Zorblat" in r.stdout)
    assert (await k.run(k.alice, "tg-unload-kg-core", "--id", "moons")).code == 0
    facts = (await query("-g", "")).stdout
    assert "urn:test:quuxar" in facts and "Zorblat" not in facts, facts


async def test_a_bad_core_is_refused_and_nothing_is_kept(keyed: Keyed, tmp_path: Path) -> None:
    k = keyed
    named = tmp_path / "named.core"
    await write_core(k, named, core_records(graph="urn:graph:source"))
    put = await k.run(k.alice, "tg-put-kg-core", "--id", "bad", "-i", str(named))
    assert "knowledge: a core's triples are in the default graph" in put.stdout, put
    words = tmp_path / "words.core"
    await write_core(k, words, core_records(vector=["one", "two"]))
    put = await k.run(k.alice, "tg-put-kg-core", "--id", "bad", "-i", str(words))
    assert "each vector is a non-empty list of numbers" in put.stdout, put
    # the triples part before the bad vector was kept (each part is one request), the
    # vector was not: the core holds what was accepted
    back = tmp_path / "back.core"
    got = await k.run(k.alice, "tg-get-kg-core", "--id", "bad", "-o", str(back))
    assert "Got: 1 triple, 0 GE" in got.stdout, got


async def test_the_admin_lists_the_users_keys_act_for(keyed: Keyed) -> None:
    listed = await keyed.run(ADMIN, "tg-list-users")
    rows = [line for line in listed.stdout.splitlines() if "API key(s)" in line]
    assert [r.split("|")[1].strip() for r in rows] == ["alice", "bob"], listed
    assert "| 2 API key(s) |" in rows[0] and "| yes " in rows[0], listed
    refused = await keyed.run(keyed.alice, "tg-list-users")
    assert "managing API keys needs the admin token" in refused.stderr, refused
