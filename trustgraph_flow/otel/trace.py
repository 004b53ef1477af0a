"""A trace as the exporter gathers it from the trace messages: each entity's facts."""

from __future__ import annotations

from dataclasses import dataclass, field

from trustgraph_base.provenance.namespaces import PROV, RDF, TG

Objects = dict[str, list[str]]  # predicate IRI → values (IRIs and literals as text)


@dataclass
class Trace:
    """One top-level trace as the exporter gathered it: every entity's facts (its own and
    its sub-traces'), and when each entity arrived (Unix ns)."""

    root: str
    facts: dict[str, Objects] = field(default_factory=dict)
    arrived: dict[str, int] = field(default_factory=dict)
    user: str = ""
    collection: str = ""
    # A GraphRAG exploration's selected edges with where each was stated (read from the
    # store: the source graph is not in the trace's messages), by exploration URI.
    edges: dict[str, list[dict[str, object]]] = field(default_factory=dict)

    def one(self, uri: str, pred: str) -> str | None:
        values = self.facts.get(uri, {}).get(pred)
        return values[0] if values else None

    def has_type(self, uri: str, cls: str) -> bool:
        return cls in self.facts.get(uri, {}).get(RDF.type.i, [])

    def questions(self, cls: str) -> list[str]:
        """The questions (the trace's and its sub-traces') of type ``cls``."""
        return [u for u in self.facts if self.has_type(u, TG.Question.i) and self.has_type(u, cls)]

    def subtraces(self, step: str) -> list[str]:
        """The questions of the sub-traces an agent step ran."""
        derived = PROV.wasDerivedFrom.i
        return [
            u
            for u, facts in self.facts.items()
            if self.has_type(u, TG.Question.i) and step in facts.get(derived, [])
        ]
