"""Messages shared by every service: the base classes, errors, metadata and triples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import pyoxigraph as ox
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from trustgraph_base.bounds import DEFAULT_COLLECTION, DEFAULT_USER, NAME_MAX, Bound
from trustgraph_base.provenance.common import check_started_at
from trustgraph_base.rdf.nquads import nquads_text, parse_checked, triple_of
from trustgraph_base.rdf.terms import Triple


def bounded(bound: Bound, **field: Any) -> Any:
    """A ``Field`` with ``bound``'s default and range (the CLI reads the same ``Bound``)."""
    return Field(default=bound.default, ge=bound.low, le=bound.high, **field)


def _started_at(value: str) -> str:
    if not value:
        return value
    try:
        return check_started_at(value)
    except ValueError as exc:  # its own words, without pydantic's "Value error, " prefix
        raise PydanticCustomError("started_at", str(exc)) from None


StartedAt = Annotated[str, AfterValidator(_started_at)]
"""A caller-given trace start: empty (now), or an ``xsd:dateTime`` with its zone, from 1970
to a day from now (``check_started_at``); anything else is refused when the request is read."""


class Message(BaseModel):
    """Base of every internal message: strict (unknown fields are refused) and frozen."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class Error(Message):
    """A failure returned as data in a response: a short machine ``type`` and a human ``message``."""

    type: str
    message: str


class Response(Message):
    """Base of every service response.

    A streaming service sends several responses; the last has ``end_of_stream`` true.
    A failed request answers with ``error`` set (and ``end_of_stream`` true).
    """

    error: Error | None = None
    end_of_stream: bool = True


class Scoped(Message):
    """A request that acts within one user's collection."""

    user: str = Field(default=DEFAULT_USER, min_length=1, max_length=NAME_MAX)
    collection: str = Field(default=DEFAULT_COLLECTION, min_length=1, max_length=NAME_MAX)


class Metadata(Message):
    """Identity of a batch of triples and the user/collection it belongs to."""

    id: str
    user: str = Field(default=DEFAULT_USER, min_length=1, max_length=NAME_MAX)
    collection: str = Field(default=DEFAULT_COLLECTION, min_length=1, max_length=NAME_MAX)
    # The ingestion this batch belongs to, numbered by the librarian when it started (its
    # clock in ns): a removed document's (or collection's) loads are dropped by that number.
    load: int | None = Field(default=None, ge=0)


def nquads_triples(text: str) -> list[Triple]:
    """The wire triples of N-Quads text a message carries (``parse_checked``, then each
    quad assembled from its terms: ``triple_of``); refused as a validation error ``nquads:
    <reason>`` naming the first line the schema refuses."""
    try:
        quads = parse_checked(text)
    except ValueError as exc:
        raise PydanticCustomError("nquads", "nquads: {reason}", {"reason": str(exc)}) from None
    return [triple_of(q) for q in quads]


class Triples(Message):
    """A batch of triples for the store (each triple names its own graph).

    On the wire its triples are N-Quads 1.2 text, ``{"metadata": …, "nquads": "…"}``
    (``rdf.nquads``: a third smaller than a JSON object per term, and read in Rust); the
    older form, ``"triples": [{s, p, o, g}, …]``, is still read. The store reads either
    as ``StoreTriples``, without a model per term.
    """

    metadata: Metadata
    triples: list[Triple]

    @model_validator(mode="before")
    @classmethod
    def _from_nquads(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("nquads"), str) and "triples" not in data:
            rest = {k: v for k, v in data.items() if k != "nquads"}
            return {**rest, "triples": nquads_triples(data["nquads"])}
        return data

    @model_serializer(mode="plain", when_used="json")
    def _as_nquads(self) -> dict[str, Any]:
        return {
            "metadata": self.metadata.model_dump(mode="json", exclude_none=True),
            "nquads": nquads_text(self.triples),
        }


_NQUADS_KEY = b'},"nquads":"'  # between a wire form's metadata and its N-Quads text


def joined_triples(wire: Sequence[bytes]) -> bytes:
    """One ``Triples`` message holding the triples of several (``wire``: their wire forms, in
    order), with the first's metadata: the same bytes as encoding the joined message, without
    writing its N-Quads again (each line of it ends its triple, so the texts join as they
    are, still escaped: a quote inside either is ``\\"``, so the key is found only where it is)."""
    first, *rest = wire
    texts = (data[data.index(_NQUADS_KEY) + len(_NQUADS_KEY) : -2] for data in rest)
    return first[:-2] + b"".join(texts) + b'"}'


def _checked_nquads(text: str) -> str:
    try:
        return _Parsed(text, parse_checked(text))
    except ValueError as exc:  # its own words, without pydantic's "Value error, " prefix
        raise PydanticCustomError("nquads", "{reason}", {"reason": str(exc)}) from None


class _Parsed(str):
    """N-Quads text that passed ``parse_checked``, with the quads it holds."""

    quads: list[ox.Quad]

    def __new__(cls, text: str, quads: list[ox.Quad]) -> _Parsed:
        out = super().__new__(cls, text)
        out.quads = quads
        return out


class StoreTriples(Message):
    """A ``Triples`` message as the store reads it: the triples as N-Quads text, parsed and
    checked (``rdf.nquads.parse_checked``) into pyoxigraph quads, no model per term.

    The older JSON form (``triples``) is validated by the same models as ``Triples`` and
    then written as text. A message that holds anything either form refuses does not
    validate, so the runtime dead-letters it alone.
    """

    metadata: Metadata
    nquads: Annotated[str, AfterValidator(_checked_nquads)] | None = None
    triples: list[Triple] | None = None  # the older form
    _quads: list[ox.Quad] = PrivateAttr(default_factory=list)

    @model_validator(mode="after")
    def _parsed(self) -> StoreTriples:
        if (self.nquads is None) == (self.triples is None):
            raise PydanticCustomError("form", "a message has 'nquads' or 'triples' (exactly one)")
        if self.triples is not None:
            try:
                self._quads = parse_checked(nquads_text(self.triples))
            except ValueError as exc:
                raise PydanticCustomError(
                    "triples", "triples: {reason}", {"reason": str(exc)}
                ) from None
        elif isinstance(self.nquads, _Parsed):
            self._quads = self.nquads.quads
        return self

    @property
    def quads(self) -> list[ox.Quad]:
        """Every triple of the message as a pyoxigraph quad (its graph, or the default)."""
        return self._quads

    @property
    def text(self) -> str:
        """The message's triples as N-Quads text."""
        return self.nquads if self.nquads is not None else nquads_text(self.triples or [])

    @classmethod
    def of(cls, message: Triples) -> StoreTriples:
        """What the store reads when ``message`` is published (``ValidationError`` when the
        parser refuses one of its terms, e.g. ``http://ex.com/%zz``)."""
        return cls(metadata=message.metadata, nquads=nquads_text(message.triples))
