"""Which knowledge core a fact was loaded from (``urn:graph:source``, beside SPEC's triples;
docs/provenance.md, "Loaded from a knowledge core")::

    <urn:trustgraph:core:moons> a prov:Entity, tg:KnowledgeCore ;
        tg:contains << <urn:test:zorblat> <urn:test:orbits> <urn:test:quuxar> >> .

A core holds the facts it loaded as a subgraph holds those extracted from a chunk, so
unloading it removes the facts that no document's subgraph (nor another core) holds too.
A fact with a blank node is not held: a blank node names nothing outside its message."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from trustgraph_base.provenance.common import triple, types
from trustgraph_base.provenance.namespaces import GRAPH_SOURCE, PROV, TG
from trustgraph_base.rdf.terms import BlankTerm, Triple, quoted

CORE_PREFIX = "urn:trustgraph:core:"


def core_uri(core: str) -> str:
    """The URI of a loaded core: its facts' holder, and the document its vectors carry."""
    return CORE_PREFIX + quote(core, safe="")


def core_triples(uri: str, facts: Sequence[Triple]) -> list[Triple]:
    """The core ``uri`` and ``tg:contains`` for each of ``facts`` (default-graph triples)."""
    held = [t for t in facts if not isinstance(t.s, BlankTerm) and not isinstance(t.o, BlankTerm)]
    return [
        *types(uri, GRAPH_SOURCE, PROV.Entity, TG.KnowledgeCore),
        *(triple(uri, TG.contains, quoted(t.s, t.p, t.o), GRAPH_SOURCE) for t in held),
    ]
