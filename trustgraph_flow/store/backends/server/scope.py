"""A collection's place on the SPARQL server: its graphs' physical names (``Scope``), blank nodes as
IRIs (``skolem``), the registry of collections, ``INSERT DATA`` text of pyoxigraph terms, and a
caller's query with the collection's graph names renamed (``rename_graphs``)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, unquote

import pyoxigraph as ox

from trustgraph_flow.store.core.convert import DEFAULT_GRAPH, OxGraph, named
from trustgraph_flow.store.sparql.client import (
    literal,
    term,
)

PREFIX = "urn:tg:store:"


REGISTRY = named(PREFIX + "registry")


_USER, _COLLECTION = named(PREFIX + "user"), named(PREFIX + "collection")


BNODE = "urn:tg:bnode:"  # blank nodes are stored as these IRIs (skolemised) and read back as blank nodes


def skolem(t: Any) -> Any:
    """A term with its blank nodes as IRIs: SPARQL Update makes a fresh node of every ``_:x``
    (a replayed batch would duplicate it), and a query cannot name a stored one."""
    if isinstance(t, ox.BlankNode):
        return named(BNODE + quote(t.value, safe=""))
    if isinstance(t, ox.Triple):
        return ox.Triple(skolem(t.subject), t.predicate, skolem(t.object))
    return t


def unskolem(t: Any) -> Any:
    """The stored form of a term back as written (``skolem`` undone)."""
    if isinstance(t, ox.NamedNode) and t.value.startswith(BNODE):
        return ox.BlankNode(unquote(t.value[len(BNODE) :]))
    if isinstance(t, ox.Triple):
        return ox.Triple(unskolem(t.subject), t.predicate, unskolem(t.object))
    return t


def scope_iri(user: str, collection: str) -> str:
    return f"{PREFIX}{quote(user, safe='')}:{quote(collection, safe='')}"


class Scope:
    """The physical graph names of one collection."""

    def __init__(self, user: str, collection: str) -> None:
        self.user, self.collection = user, collection
        self.iri = scope_iri(user, collection)
        self.default = named(self.iri + ":default")
        self.index = named(self.iri + ":index")
        self.empty = named(self.iri + ":empty")  # never written: an empty graph to query
        self._named = self.iri + ":g:"

    def physical(self, g: OxGraph) -> ox.NamedNode:
        if isinstance(g, ox.DefaultGraph):
            return self.default
        if isinstance(g, ox.BlankNode):
            raise ValueError("a blank node graph name cannot be stored on a SPARQL server")
        return named(self._named + g.value)

    def logical(self, g: ox.NamedNode) -> OxGraph | None:
        """The logical graph of a physical name of this scope (None: not one of its data graphs)."""
        if g == self.default:
            return DEFAULT_GRAPH
        if g.value.startswith(self._named):
            return named(g.value[len(self._named) :])
        return None

    def filter(self, var: str) -> str:
        """A FILTER keeping ``?var`` to this scope's data graphs (not its index)."""
        return (
            f"FILTER(?{var} = {term(self.default)} || "
            f"STRSTARTS(STR(?{var}), {literal(self._named)}))"
        )

    def registry(self) -> list[ox.Quad]:
        s = named(self.iri)
        return [
            ox.Quad(s, _USER, ox.Literal(self.user), REGISTRY),
            ox.Quad(s, _COLLECTION, ox.Literal(self.collection), REGISTRY),
        ]


def insert_data(quads: Iterable[ox.Quad], op: str = "INSERT DATA") -> str:
    """``INSERT DATA`` (or ``DELETE DATA``) of physical quads, grouped by graph."""
    by_graph: dict[ox.NamedNode, list[str]] = defaultdict(list)
    for q in quads:
        assert isinstance(q.graph_name, ox.NamedNode)
        by_graph[q.graph_name].append(f"{term(q.subject)} {term(q.predicate)} {term(q.object)} .")
    body = " ".join(f"GRAPH {term(g)} {{ {' '.join(lines)} }}" for g, lines in by_graph.items())
    return f"{op} {{ {body} }}"


_IRIREF = re.compile(r'<([^<>"{}|^`\\\x00-\x20]*)>')


def rename_graphs(text: str, names: dict[str, str]) -> str:
    """The query with each ``<iri>`` naming one of the collection's graphs written as its physical name.

    Only IRI tokens outside strings and comments are touched; anything not renamed still
    cannot reach another collection (the protocol's dataset holds this one's graphs only).
    """
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(text[i:end])
            i = end
        elif c in "\"'":
            quote_ = text[i : i + 3] if text[i : i + 3] in ('"""', "'''") else c
            j = i + len(quote_)
            while j < n and not text.startswith(quote_, j):
                j += 2 if text[j] == "\\" else 1
            end = min(n, j + len(quote_))
            out.append(text[i:end])
            i = end
        elif c == "<" and (m := _IRIREF.match(text, i)):
            iri = m.group(1)
            out.append(f"<{names[iri]}>" if iri in names else m.group(0))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)
