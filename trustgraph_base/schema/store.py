"""Messages of the store: triple-pattern queries and read-only SPARQL."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trustgraph_base import bounds
from trustgraph_base.rdf.terms import BlankTerm, IriTerm, Term, Triple
from trustgraph_base.schema.core import Message, Response, Scoped, bounded

ALL_GRAPHS = "*"


MAX_PATTERNS = 1000


class TriplePattern(Message):
    """One triple pattern: any of s/p/o bound."""

    s: IriTerm | BlankTerm | None = Field(default=None, discriminator="t")
    p: IriTerm | None = None
    o: Term | None = None


class TriplesQueryRequest(Scoped):
    """Triple pattern: any of s/p/o bound; ``g`` as TrustGraph reads it.

    ``g`` missing (or ``""``) is the default graph, ``"*"`` every graph, else that graph.
    ``streaming`` answers in batches of ``batch-size`` triples (the last one final).
    ``patterns`` (instead of s/p/o) asks several patterns in one round trip: the reply
    holds each one's matches (at most ``limit`` each) in the order of the patterns.
    """

    s: IriTerm | BlankTerm | None = Field(default=None, discriminator="t")
    p: IriTerm | None = None
    o: Term | None = None
    g: str | None = None
    patterns: list[TriplePattern] | None = Field(default=None, max_length=MAX_PATTERNS)
    limit: int = bounded(bounds.TRIPLE_QUERY_LIMIT)
    streaming: bool = False
    batch_size: int = Field(default=20, ge=1, le=100_000, alias="batch-size")


class TriplesQueryResponse(Response):
    """The matching triples, on the wire as ``response`` (TrustGraph's name)."""

    triples: list[Triple] = Field(default=[], alias="response")


class SparqlQueryRequest(Scoped):
    """A read-only SPARQL query (SELECT, ASK, CONSTRUCT, DESCRIBE) over the caller's collection."""

    query: str = Field(min_length=1, max_length=100_000)


class SparqlBinding(Message):
    """One SELECT row: a value per variable, in ``variables`` order (None: unbound)."""

    values: list[Term | None]


class SparqlQueryResponse(Response):
    """TrustGraph's result shape: ``query-type`` says which of ``variables``/``bindings``
    (select), ``ask-result`` (ask) or ``triples`` (construct, describe) holds the result."""

    query_type: Literal["select", "ask", "construct", "describe"] | None = Field(
        default=None, alias="query-type"
    )
    variables: list[str] = []
    bindings: list[SparqlBinding] = []
    ask_result: bool | None = Field(default=None, alias="ask-result")
    triples: list[Triple] = []
