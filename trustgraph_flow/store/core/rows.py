"""What crosses the backend interface: a trace's row in the trace list, a page's filter, a
lineage link (its ``Use`` when written, its ``LinkRow`` when read) and their keys.

Both trace indexes (``backends/embedded/trace_index.py``, ``backends/server/graph_index.py``)
return these; the views read them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pyoxigraph as ox


@dataclass(frozen=True)
class TraceFilter:
    """What a page of the trace list is narrowed to; times are ``sort_key`` strings."""

    search: str = ""  # matched case-insensitively anywhere in the question
    kind: str | None = None
    status: str | None = None
    since: str | None = None  # inclusive
    until: str | None = None  # exclusive


@dataclass(frozen=True)
class TraceRow:
    """One indexed trace."""

    id: str
    kind: str
    question: str
    time: str
    parent: str | None
    complete: bool
    failed: int  # 0: no; 1: failed (tg:error); 2: interrupted (tg:interrupted, its process died)

    @property
    def status(self) -> str:
        if self.complete:
            return "complete"
        return {0: "in-progress", 1: "failed"}.get(self.failed, "interrupted")


def sort_key(timestamp: str) -> str:
    """An xsd:dateTime as a UTC string that sorts chronologically (raw text if unparseable)."""
    try:
        when = datetime.fromisoformat(timestamp)
    except ValueError:
        return timestamp
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


Chain = tuple[str, str | None, str | None]  # chunk ('' when none), page, document
Resolver = Callable[["Use"], list[Chain]]


@dataclass(frozen=True)
class Use:
    """A trace entity's link to a source: a selected chunk (its URI) or a focus edge (its key)."""

    entity: str
    target: str
    kind: str  # "chunk" | "edge"
    root: str
    edge: ox.Triple | None = field(default=None, compare=False)


@dataclass(frozen=True)
class LinkRow:
    """One indexed link, as the lineage views read it."""

    root: str
    entity: str
    target: str
    kind: str
    chunk: str  # '' when none
    cited: bool


def edge_key(edge: ox.Triple) -> str:
    """The index key of an edge: the canonical N-Triples text of its pyoxigraph triple."""
    return str(edge)
