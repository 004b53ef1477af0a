"""Moving a collection to another shard while it is written: mark, copy, switch, delete.

1. **Mark**: the row gets ``sh:to <target>``. From then on every lease that writes the
   collection makes its writes on both shards: on the old one (where it is still read) and,
   by its journal, on the target (``ShardedStores.settle``, which reads the row *after* the
   write, so a write that began before the mark reaches the target too).
2. **Copy** every graph of the collection (its data, its trace index, its signed log, its
   registry entry) from the old shard to the target, each read whole in one query (a
   snapshot). Quads are a set: what the copy and the double writes both bring is there once.
3. **Switch**: one update makes the target the collection's shard (reads go there now).
4. **Delete** the collection on the old shard, ``settle`` seconds after the switch, so reads
   and writes that read the row before it have ended.

Writes are never held: none is lost (every write reaches the old shard before the copy
reads it, or the target by its journal) and none is duplicated (sets). What a move does not
cover: a *removal* (deleting a trace or document) racing the copy's read could be undone by
the copy; ``settle`` seconds after the mark, before the copy, let such leases end first.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import pyoxigraph as ox

from trustgraph_flow.store.backends.server.scope import REGISTRY, Scope, insert_data, scope_iri
from trustgraph_flow.store.backends.server.stores import RemoteStores
from trustgraph_flow.store.backends.sharded.placement import ShardError
from trustgraph_flow.store.backends.sharded.stores import ShardedStores
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.sparql.client import literal, term

log = logging.getLogger(__name__)
CHUNK = 5_000  # quads per INSERT DATA on the target


@dataclass(frozen=True)
class Moved:
    source: str
    target: str
    quads: int  # copied (the double writes meanwhile are not counted)


def move(
    stores: ShardedStores, user: str, collection: str, target: str, settle: float = 2.0
) -> Moved:
    """Move the collection to the shard ``target`` online (module docstring)."""
    scope = scope_iri(user, collection)
    shards = stores.placement.shards()
    if target not in shards:
        raise ShardError(
            f"no shard {target!r} in the placement table (shards: {', '.join(sorted(shards))})"
        )
    row = stores.placement.row(scope)
    if row is None:
        raise ShardError(f"no collection {collection!r} of user {user!r} is placed on any shard")
    if row.to is not None and row.to != target:
        raise ShardError(f"collection {collection!r} is already moving to shard {row.to!r}")
    if row.on == target:
        return Moved(row.on, target, 0)
    source, into = stores.shard(row.on), stores.shard(target)  # an unknown target stops here
    stores.placement.moving(scope, row.on, target)
    marked = stores.placement.row(scope)
    if marked is None or marked.to != target:
        raise ShardError(f"collection {collection!r} changed while being marked: try again")
    log.info("moving %s/%s from shard %s to %s", user, collection, row.on, target)
    time.sleep(settle)
    copied = copy(source, into, Scope(user, collection))
    stores.placement.switch(scope, row.on, target)
    time.sleep(settle)
    source.drop(user, collection)
    log.info("moved %s/%s to shard %s (%d quads copied)", user, collection, target, copied)
    return Moved(row.on, target, copied)


def copy(source: RemoteStores, target: RemoteStores, scope: Scope) -> int:
    """Every graph of the scope and its registry entry, from one server to the other."""
    rows = source.server.rows(
        f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{}} FILTER(STRSTARTS(STR(?g), {literal(scope.iri + ':')})) }}"
    )
    copied = 0
    for g in [r["g"] for r in rows] + [REGISTRY]:
        assert isinstance(g, ox.NamedNode)
        where = (
            f"{term(named(scope.iri))} ?p ?o BIND({term(named(scope.iri))} AS ?s)"
            if g == REGISTRY
            else "?s ?p ?o"
        )
        triples = source.server.construct(
            f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH {term(g)} {{ {where} }} }}",
            default=[],
            named=[],
        )
        quads = [ox.Quad(t.subject, t.predicate, t.object, g) for t in triples]
        for start in range(0, len(quads), CHUNK):
            target.server.update(insert_data(quads[start : start + CHUNK]))
        copied += len(quads)
    return copied
