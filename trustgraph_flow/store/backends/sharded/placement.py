"""Where each collection lives when the store is sharded: the placement table, the one source
of truth every store processor reads.

The table is the graph ``urn:tg:store:placement`` of the *control* server (the first of the
store's servers unless ``store_control`` names another):

    <urn:tg:shard:<name>>  sh:name "<name>" ; sh:url "<url>" .      each shard, once
    <scope>                sh:on "<name>" .                         a collection's shard
    <scope>                sh:to "<name>" .                         … while it moves there

(``sh:`` = ``urn:tg:shard:``, ``<scope>`` = ``urn:tg:store:<user>:<collection>`` as on one
server). A collection is placed when first written: the processor proposes the shard the
rendezvous hash of the scope ranks first among the *registered* shards (never among the
ones it was given, so two processors propose alike) and that answers (one that is down is
passed over for the next: a collection made during an outage is written at once, not held
until the shard is back), and claims it with one conditional update
(``INSERT … WHERE { FILTER NOT EXISTS … }``), then reads the row back: whoever claimed
first, every processor uses what the table says from then on. A shard is registered by
the first processor given it; a processor given a name the table binds to another URL,
or a URL it binds to another name, stops at start, naming both. Each shard server also names its control server (graph
``urn:tg:shard:control``): a processor handed another control store for it stops at start.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote

import pyoxigraph as ox

from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.sparql.client import SparqlServer, literal, term

SH = "urn:tg:shard:"
TABLE = named("urn:tg:store:placement")
CONTROL = named(SH + "control")
_NAME, _URL, _ON, _TO, _GOVERNED = (named(SH + p) for p in ("name", "url", "on", "to", "by"))
_SELF = named(SH + "self")


class ShardError(OSError):
    """A collection placed on a shard the store does not know (removed from the table), or
    a shard list that disagrees with the table: named in one line, never written elsewhere."""


@dataclass(frozen=True)
class Row:
    """A collection's place: its shard, and the shard it is moving to (if it is)."""

    on: str
    to: str | None = None

    def targets(self) -> list[str]:
        """Every shard a write to the collection must reach (both while it moves)."""
        return [self.on] + ([self.to] if self.to and self.to != self.on else [])


def shard_node(name: str) -> ox.NamedNode:
    return named(SH + quote(name, safe=""))


def ranked(names: list[str], scope: str) -> list[str]:
    """The shards in the order a new collection goes to them: the highest hash of (shard,
    scope) first. Stable: adding a shard moves no placed collection (the table keeps them)
    and places on each new one its share."""
    if not names:
        raise ShardError("the placement table names no shard")
    return sorted(names, key=lambda n: hashlib.sha256(f"{n}\0{scope}".encode()).digest())[::-1]


def rendezvous(names: list[str], scope: str) -> str:
    """The shard a new collection goes to when every shard answers."""
    return ranked(names, scope)[0]


class Placement:
    """The placement table on the control server."""

    def __init__(self, control: SparqlServer) -> None:
        self.control = control

    def shards(self) -> dict[str, str]:
        """Every registered shard: name → URL."""
        rows = self.control.rows(
            f"SELECT ?n ?u WHERE {{ GRAPH {term(TABLE)} {{ ?s {term(_NAME)} ?n ; {term(_URL)} ?u }} }}"
        )
        return {r["n"].value: r["u"].value for r in rows}

    def register(self, name: str, url: str) -> None:
        """Add a shard to the table (once); a name bound to another URL, or a URL bound to
        another name (one server under two names: a move between them would copy a
        collection onto its own server, then drop it there), is a ShardError."""
        s = shard_node(name)
        self.control.update(
            f"INSERT {{ GRAPH {term(TABLE)} {{ {term(s)} {term(_NAME)} {literal(name)} ; "
            f"{term(_URL)} {literal(url)} }} }} WHERE {{ FILTER NOT EXISTS {{ GRAPH {term(TABLE)} "
            f"{{ {{ {term(s)} {term(_URL)} ?any }} UNION {{ ?other {term(_URL)} {literal(url)} }} }} }} }}"
        )
        shards = self.shards()
        bound = shards.get(name)
        other = next((n for n, u in sorted(shards.items()) if u == url and n != name), None)
        if bound is None and other is not None:
            raise ShardError(
                f"the server {url} is shard {other!r} in the placement table on "
                f"{self.control.uri}, not {name!r}: give every store processor the same shards"
            )
        if bound != url:
            raise ShardError(
                f"shard {name!r} is {bound} in the placement table on {self.control.uri}, "
                f"not {url}: give every store processor the same shards"
            )

    def govern(self, shard: SparqlServer) -> None:
        """Mark the shard server as placed by this control server (once); a shard another
        control server governs is a ShardError (two tables would place its collections)."""
        mine = literal(self.control.uri)
        shard.update(
            f"INSERT {{ GRAPH {term(CONTROL)} {{ {term(_SELF)} {term(_GOVERNED)} {mine} }} }} "
            f"WHERE {{ FILTER NOT EXISTS {{ GRAPH {term(CONTROL)} {{ {term(_SELF)} {term(_GOVERNED)} ?c }} }} }}"
        )
        rows = shard.rows(
            f"SELECT ?c WHERE {{ GRAPH {term(CONTROL)} {{ {term(_SELF)} {term(_GOVERNED)} ?c }} }}"
        )
        found = {r["c"].value for r in rows}
        if found != {self.control.uri}:
            raise ShardError(
                f"the store server {shard.uri} is placed by the control store {', '.join(sorted(found))}, "
                f"not {self.control.uri}: give every store processor the same control store (the first server)"
            )

    def row(self, scope: str) -> Row | None:
        """The collection's place, or None when it was never placed."""
        s = named(scope)
        rows = self.control.rows(
            f"SELECT ?p ?n WHERE {{ GRAPH {term(TABLE)} {{ {term(s)} ?p ?n "
            f"FILTER(?p IN ({term(_ON)}, {term(_TO)})) }} }}"
        )
        on = sorted(r["n"].value for r in rows if r["p"] == _ON)
        to = sorted(r["n"].value for r in rows if r["p"] == _TO)
        if not on:
            return None
        # Two claims can only differ if the shards changed between them: the first name wins.
        return Row(on[0], to[0] if to else None)

    def claim(self, scope: str, answers: Callable[[str], bool] | None = None) -> Row:
        """The collection's place, claiming the proposed shard for it if it has none: the first
        in ``ranked`` order that ``answers`` (a shard that is down is passed over; none
        answering, the first)."""
        found = self.row(scope)
        if found is not None:
            return found
        s = named(scope)
        order = ranked(sorted(self.shards()), scope)
        name = next((n for n in order if answers is None or answers(n)), order[0])
        self.control.update(
            f"INSERT {{ GRAPH {term(TABLE)} {{ {term(s)} {term(_ON)} {literal(name)} }} }} "
            f"WHERE {{ FILTER NOT EXISTS {{ GRAPH {term(TABLE)} {{ {term(s)} {term(_ON)} ?any }} }} }}"
        )
        placed = self.row(scope)
        assert placed is not None
        return placed

    def moving(self, scope: str, source: str, target: str) -> None:
        """Mark the collection as moving from ``source`` to ``target`` (writes reach both)."""
        s = named(scope)
        self.control.update(
            f"INSERT {{ GRAPH {term(TABLE)} {{ {term(s)} {term(_TO)} {literal(target)} }} }} "
            f"WHERE {{ GRAPH {term(TABLE)} {{ {term(s)} {term(_ON)} {literal(source)} }} "
            f"FILTER NOT EXISTS {{ GRAPH {term(TABLE)} {{ {term(s)} {term(_TO)} ?any }} }} }}"
        )

    def switch(self, scope: str, source: str, target: str) -> None:
        """The collection is on ``target`` from now on: one update, so no reader sees it on neither."""
        s, g = term(named(scope)), term(TABLE)
        self.control.update(
            f"DELETE DATA {{ GRAPH {g} {{ {s} {term(_ON)} {literal(source)} . "
            f"{s} {term(_TO)} {literal(target)} }} }} ;\n"
            f"INSERT DATA {{ GRAPH {g} {{ {s} {term(_ON)} {literal(target)} }} }}"
        )

    def forget(self, scope: str) -> None:
        """The collection was dropped: no place any more (placed again when written again)."""
        s = term(named(scope))
        self.control.update(f"DELETE WHERE {{ GRAPH {term(TABLE)} {{ {s} ?p ?o }} }}")

    def placed_on(self, name: str) -> int:
        """How many collections live on (or are moving to) the shard."""
        rows = self.control.rows(
            f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH {term(TABLE)} {{ ?s ?p {literal(name)} "
            f"FILTER(?p IN ({term(_ON)}, {term(_TO)})) }} }}"
        )
        return int(rows[0]["n"].value) if rows else 0

    def unregister(self, name: str) -> None:
        """Remove a shard no collection is placed on (a ShardError otherwise)."""
        if held := self.placed_on(name):
            raise ShardError(
                f"shard {name!r} still holds "
                + (
                    "1 collection: move it first"
                    if held == 1
                    else f"{held} collections: move them first"
                )
            )
        s = term(shard_node(name))
        self.control.update(f"DELETE WHERE {{ GRAPH {term(TABLE)} {{ {s} ?p ?o }} }}")
