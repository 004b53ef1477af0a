"""Messages of the store: triple-pattern queries and read-only SPARQL."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator
from pydantic_core import PydanticCustomError

from trustgraph_base import bounds
from trustgraph_base.rdf.iri import IRI_PATTERN
from trustgraph_base.rdf.terms import BlankTerm, IriTerm, Term, Triple
from trustgraph_base.schema.core import Message, Response, Scoped, bounded, nquads_triples

ALL_GRAPHS = "*"


MAX_PATTERNS = 1000
MAX_FOLLOW = 16  # predicates a request may follow from its matches' subjects
MAX_DATASET = 64  # graphs a SPARQL request may name as its dataset

GraphIri = Annotated[str, Field(pattern=IRI_PATTERN, max_length=2048)]


class TriplePattern(Message):
    """One triple pattern: any of s/p/o bound; ``g`` and ``limit`` given: this pattern's
    graph (read as ``TriplesQueryRequest.g``) and most matches, else the request's."""

    s: IriTerm | BlankTerm | None = Field(default=None, discriminator="t")
    p: IriTerm | None = None
    o: Term | None = None
    g: str | None = None
    limit: int | None = Field(
        default=None, ge=bounds.TRIPLE_QUERY_LIMIT.low, le=bounds.TRIPLE_QUERY_LIMIT.high
    )


class TriplesQueryRequest(Scoped):
    """Triple pattern: any of s/p/o bound; ``g`` as TrustGraph reads it.

    ``g`` missing (or ``""``) is the default graph, ``"*"`` every graph, else that graph.
    ``streaming`` answers in batches of ``batch-size`` triples (the last one final).
    ``patterns`` (instead of s/p/o) asks several patterns in one round trip: the reply
    holds each one's matches (at most ``limit`` each, or the pattern's own ``limit``, in
    the request's ``g`` or the pattern's own) in the order of the patterns; ``distinct``
    leaves out a triple (in its graph) the reply holds already, from an earlier pattern.
    ``nquads`` asks for the matches as N-Quads 1.2 text (``TriplesQueryResponse.nquads``):
    written by the store in Rust and read back in Rust, a JSON object per term neither.
    ``follow`` adds, after the matches, each distinct subject's triples (first matched
    first) with each of its predicates in turn, as patterns ``{s, p}`` in the request's
    ``g`` (at most ``limit`` each; ``distinct`` alike): what a second request built from the
    first one's answer would ask (GraphRAG's evidence: the spans stating each edge, then
    their quotes and chunks), in one round trip; refused past ``MAX_PATTERNS`` such patterns.
    """

    s: IriTerm | BlankTerm | None = Field(default=None, discriminator="t")
    p: IriTerm | None = None
    o: Term | None = None
    g: str | None = None
    patterns: list[TriplePattern] | None = Field(default=None, max_length=MAX_PATTERNS)
    limit: int = bounded(bounds.TRIPLE_QUERY_LIMIT)
    streaming: bool = False
    batch_size: int = Field(default=20, ge=1, le=100_000, alias="batch-size")
    distinct: bool | None = None  # unset is not written: TrustGraph's frame, unchanged
    nquads: bool | None = None  # the same: set only by callers of this project
    follow: list[IriTerm] | None = Field(default=None, max_length=MAX_FOLLOW)


class TriplesQueryResponse(Response):
    """The matching triples, on the wire as ``response`` (TrustGraph's name); or, to a
    request that set ``nquads``, as N-Quads 1.2 text in ``nquads``, read back into
    ``triples`` (the same triples in the same order: ``nquads`` is then None)."""

    triples: list[Triple] = Field(default=[], alias="response")
    nquads: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_nquads(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not isinstance(data.get("nquads"), str):
            return data
        if data.get("response") or data.get("triples"):
            raise PydanticCustomError("nquads", "a reply has 'response' or 'nquads', not both")
        rest = {k: v for k, v in data.items() if k not in ("nquads", "triples")}
        return {**rest, "response": nquads_triples(data["nquads"])}


class SparqlQueryRequest(Scoped):
    """A read-only SPARQL query (SELECT, ASK, CONSTRUCT, DESCRIBE) over the caller's collection.

    ``default-graph-uri`` and ``named-graph-uri`` are the SPARQL 1.1 Protocol's dataset, naming
    graphs of the collection only: given either, the query's default graph is the merge of
    the first and its named graphs are the second (FROM and FROM NAMED in the text are then
    ignored). Neither: the collection's default graph and all its named graphs.
    """

    query: str = Field(min_length=1, max_length=100_000)
    default_graph_uri: list[GraphIri] | None = Field(
        default=None, max_length=MAX_DATASET, alias="default-graph-uri"
    )
    named_graph_uri: list[GraphIri] | None = Field(
        default=None, max_length=MAX_DATASET, alias="named-graph-uri"
    )

    def dataset(self) -> tuple[list[str], list[str]] | None:
        """The protocol's dataset as (default graphs, named graphs); None when not given."""
        if self.default_graph_uri is None and self.named_graph_uri is None:
            return None
        return list(self.default_graph_uri or []), list(self.named_graph_uri or [])


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

    def may_be_blank(self) -> bool:
        """Whether this answer could have come from no data at all, so from a collection that
        does not exist: nothing, one row or triple (``SELECT (COUNT(*) AS ?n)`` is one row,
        0), or a boolean. More than one row or triple is data."""
        return self.query_type == "ask" or (len(self.bindings) <= 1 and len(self.triples) <= 1)


class HeldWritten(Message):
    """Store → librarian: the writes the store held for a server that was down (a shard) are
    written, this collection's among them, or the server it refused this collection's seal
    for answers again: its documents the store could not sign for that reason can be signed
    now (docs/store.md, "A shard that is down")."""

    user: str = Field(min_length=1, max_length=bounds.NAME_MAX)
    collection: str = Field(min_length=1, max_length=bounds.NAME_MAX)
