"""Moving a collection to another shard while it is written: mark, copy, switch, delete.

1. **Mark**: the row gets ``sh:to <target>``. From then on every lease that writes the
   collection makes its writes on both shards: on the old one (where it is still read) and,
   by its journal, on the target (``ShardedStores.settle``, which reads the row *after* the
   write, so a write that began before the mark reaches the target too).
2. **Copy** every graph of the collection (its data, its trace index, its signed log, its
   registry entry) from the old shard to the target, each read whole in one query (a
   snapshot). Quads are a set: what the copy and the double writes both bring is there once.
   Then **reconcile**: what the target holds and the old shard no longer does was removed
   (a trace or document deleted) after the copy read it, and is removed from the target.
3. **Switch**: one update makes the target the collection's shard (reads go there now).
4. **Delete** the collection on the old shard, ``settle`` seconds after the switch, so reads
   and writes that read the row before it have ended (at least ``ROW_CACHE``: a lease may
   start from a row its process read that long ago).

Writes are never held: none is lost (every write reaches the old shard before the copy
reads it, or the target by its journal) and none is duplicated (sets); a removal the copy
would undo is undone again by the reconcile. Left: a quad removed and written again while
the reconcile compares it (a trace deleted and re-sent in that window) may be removed.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import pyoxigraph as ox

from trustgraph_flow.store.backends.server.scope import REGISTRY, Scope, insert_data, scope_iri
from trustgraph_flow.store.backends.server.stores import RemoteStores
from trustgraph_flow.store.backends.sharded.placement import ShardError
from trustgraph_flow.store.backends.sharded.stores import ROW_CACHE, ShardedStores
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
    if settle < ROW_CACHE:
        raise ShardError(
            f"settle {settle:g} s is shorter than a store process keeps a row ({ROW_CACHE:g} s)"
        )
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
    undone = reconcile(source, into, Scope(user, collection))
    stores.placement.switch(scope, row.on, target)
    time.sleep(settle)
    source.drop(user, collection)
    log.info(
        "moved %s/%s to shard %s (%d quads copied, %d removed meanwhile)",
        user, collection, target, copied, undone,
    )  # fmt: skip
    return Moved(row.on, target, copied)


def graphs(server: RemoteStores, scope: Scope) -> list[ox.NamedNode]:
    """Every graph of the scope on one server, and the registry (its entry only is read)."""
    rows = server.server.rows(
        f"SELECT DISTINCT ?g WHERE {{ GRAPH ?g {{}} FILTER(STRSTARTS(STR(?g), {literal(scope.iri + ':')})) }}"
    )
    found = [r["g"] for r in rows]
    return [g for g in found if isinstance(g, ox.NamedNode)] + [REGISTRY]


def quads(server: RemoteStores, scope: Scope, g: ox.NamedNode) -> list[ox.Quad]:
    """One graph of the scope, read whole in one query (a snapshot)."""
    s = term(named(scope.iri))
    where = f"{s} ?p ?o BIND({s} AS ?s)" if g == REGISTRY else "?s ?p ?o"
    triples = server.server.construct(
        f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH {term(g)} {{ {where} }} }}", default=[], named=[]
    )
    return [ox.Quad(t.subject, t.predicate, t.object, g) for t in triples]


def copy(source: RemoteStores, target: RemoteStores, scope: Scope) -> int:
    """Every graph of the scope and its registry entry, from one server to the other."""
    copied = 0
    for g in graphs(source, scope):
        found = quads(source, scope, g)
        for start in range(0, len(found), CHUNK):
            target.server.update(insert_data(found[start : start + CHUNK]))
        copied += len(found)
    return copied


def reconcile(source: RemoteStores, target: RemoteStores, scope: Scope) -> int:
    """Remove from the target what the source no longer holds: a quad removed (a trace or
    document deleted) after the copy read it was removed on both shards, then written back
    to the target by the copy. The target is read first: a quad written meanwhile reaches
    the source before the target, so one found on the target and not on the source was
    removed from the source. How many were removed."""
    removed = 0
    for g in graphs(target, scope):
        there = set(quads(target, scope, g))
        stale = sorted(there - set(quads(source, scope, g)), key=str)
        for start in range(0, len(stale), CHUNK):
            target.server.update(insert_data(stale[start : start + CHUNK], "DELETE DATA"))
        removed += len(stale)
    return removed
