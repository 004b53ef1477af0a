"""Messages shared by every service: the base classes, errors, metadata and triples."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from trustgraph_base.bounds import DEFAULT_COLLECTION, DEFAULT_USER, NAME_MAX, Bound
from trustgraph_base.provenance.common import check_started_at
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


class Triples(Message):
    """A batch of triples for the store (each triple names its own graph)."""

    metadata: Metadata
    triples: list[Triple]
