"""What the agent's conclusion is checked against (``conclusion.py``): the claims its tools'
GraphRAG and DocumentRAG answers were verified to hold, read from their sub-traces' explain
events as the tools return.

The agent reads a few kinds of those events' triples (a claim, its text, its assessment's
verdict; the answer's verdict and reason, an abstention): ``RagReply`` validates only those
(``provenance.reading``), and a RAG tool's replies are decoded as it (``GRAPH_RAG_READ``,
``DOCUMENT_RAG_READ``). Validating all of them was a fifth of the agent's CPU per question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated

from trustgraph_base.messaging import DOCUMENT_RAG, GRAPH_RAG
from trustgraph_base.messaging.services import ServiceSpec
from trustgraph_base.provenance import TG
from trustgraph_base.provenance.namespaces import RDF
from trustgraph_base.provenance.reading import only_reading, read_iris
from trustgraph_base.provenance.verification import assessment_uri
from trustgraph_base.rdf.terms import LiteralTerm, Triple
from trustgraph_base.schema import DocumentRagRequest, GraphRagRequest
from trustgraph_base.schema.rag import RagResponse

# What ``ToolEvidence.add`` and ``verdict_of`` read: rdf:type only of these classes. The
# tools are asked for only these in their explain events (``EXPLAIN_READ``): the rest of a
# sub-trace (~29 kB of JSON a GraphRAG answer) went to the agent to be dropped here.
_PREDICATES, _TYPES = (
    (TG.answerVerdict, TG.reason, TG.content, TG.verdict),
    (TG.Claim, TG.Abstention),
)
_READ = only_reading(_PREDICATES, _TYPES)
EXPLAIN_READ = read_iris(_PREDICATES, _TYPES)


class RagReply(RagResponse):
    """A GraphRAG or DocumentRAG reply with only the explain triples the agent reads."""

    explain_triples: Annotated[list[Triple], _READ] = []


GRAPH_RAG_READ = ServiceSpec(GRAPH_RAG.name, GraphRagRequest, RagReply)
DOCUMENT_RAG_READ = ServiceSpec(DOCUMENT_RAG.name, DocumentRagRequest, RagReply)


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
