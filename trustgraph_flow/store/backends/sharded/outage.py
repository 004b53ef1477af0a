"""A shard that does not answer: its servers' errors name it (``named``), and the held writes
wait on it alone (``Reach``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

from trustgraph_flow.store.backends.server.stores import RemoteStores
from trustgraph_flow.store.sparql.client import StoreTimeout, StoreUnavailable
from trustgraph_flow.store.sparql.stalls import Stalls


class Shards(Protocol):
    """What ``Reach`` asks of the sharded store (``ShardedStores``, which imports this module)."""

    def remote(self, name: str) -> RemoteStores: ...

    def shard(self, name: str) -> RemoteStores: ...

    @property
    def stalls(self) -> Stalls: ...


TABLE = "the placement table cannot be read"


@contextmanager
def table_read() -> Iterator[None]:
    """The control server unreachable is said to be the placement table's (as at start,
    ``opening.py``): a collection on another shard waits on it too, and its URL alone, not
    the collection's shard, puzzled. One that hangs keeps its own words (its URL, the limit)."""
    try:
        yield
    except StoreTimeout:
        raise
    except StoreUnavailable as exc:
        raise StoreUnavailable(f"{TABLE}: {exc}") from None


@contextmanager
def named(shard: str) -> Iterator[None]:
    """A StoreUnavailable from the shard's server names the shard, as a pending one's does:
    ``shard 'c' is unreachable: SPARQL server <url> unreachable: …``; one that took the
    request and did not answer in time (it hangs, or is too busy: not called unreachable)
    ``shard 'c' (<url>) did not answer within 30 s``."""
    try:
        yield
    except StoreUnavailable as exc:
        if str(exc).startswith(("shard ", TABLE)):  # named already (pending, another lease's)
            raise
        if isinstance(exc, StoreTimeout):
            raise StoreTimeout(exc.uri, exc.seconds, shard) from None
        raise StoreUnavailable(f"shard {shard!r} is unreachable: {exc}") from None


class Reach:
    """One shard as held writes wait on it (a ``Probe``): asked through ``ShardedStores.shard``,
    so a shard pending since the start is governed once it answers, before its writes."""

    def __init__(self, stores: Shards, name: str) -> None:
        self.stores, self.name = stores, name

    @property
    def uri(self) -> str:
        return f"shard {self.name!r}"

    def ask(self, query: str) -> bool:
        """Whether the shard answers (its server's StoreUnavailable as it is: the held writes'
        log line names the shard once, ``ShardedStores.ask`` names it)."""
        self.stores.remote(self.name).server.ask(query)
        self.stores.stalls.answered(self.name)  # timed out before: its requests made again
        self.stores.shard(self.name)  # pending since the start: governed now it answers
        return True
