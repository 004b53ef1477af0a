"""What the agent's conclusion is checked against (``conclusion.py``): the claims its tools'
GraphRAG and DocumentRAG answers were verified to hold, read from their sub-traces' explain
events as the tools return."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from trustgraph_base.provenance import TG
from trustgraph_base.provenance.namespaces import RDF
from trustgraph_base.provenance.verification import assessment_uri
from trustgraph_base.rdf.terms import LiteralTerm, Triple


@dataclass
class ToolEvidence:
    """The supported claims of the session's tools' answers (claim URI → text), and whether
    any tool's answer came back verified at all."""

    claims: dict[str, str] = field(default_factory=dict)
    verified: bool = False

    def add(self, triples: Sequence[Triple]) -> None:
        """One tool's sub-trace, as its explain events carried it."""
        claims: set[str] = set()
        texts: dict[str, str] = {}
        verdicts: dict[str, str] = {}
        for t in triples:
            s = getattr(t.s, "i", "")
            if t.p == RDF.type and t.o == TG.Claim:
                claims.add(s)
            elif t.p == TG.answerVerdict:
                self.verified = True
            elif isinstance(t.o, LiteralTerm) and t.p == TG.content:
                texts[s] = t.o.v
            elif isinstance(t.o, LiteralTerm) and t.p == TG.verdict:
                verdicts[s] = t.o.v
        for uri in sorted(claims):
            if verdicts.get(assessment_uri(uri)) == "supported" and texts.get(uri, "").strip():
                self.claims[uri] = texts[uri]
