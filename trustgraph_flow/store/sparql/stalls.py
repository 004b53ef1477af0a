"""SPARQL servers that stopped answering in time: failed at once until they answer again.

A request to a server that hangs (it takes the connection and never answers) waits the whole
``sparql_timeout`` (30 s) on the store thread that made it. With two reader threads, two
reads of a hung server's collections at once made every other read wait that long (another
shard's, or on a single server every read). So once a request to a server has timed out, it
is *stalled*: its collections' reads and writes fail at once with the same ``shard 'c'
(URL) did not answer within 30 s`` (a single server: ``SPARQL server URL …``; writes are
held, as for a server that is down), and a probe of its own (``ASK {}``, given ``PROBE``
seconds) asks it again in the background until it answers. The held writes' probe
answering clears it too. A server that refuses connections (down, not hung) is let go at
once: its requests fail fast by themselves, saying it is unreachable. The sharded backend
keeps one per shard (by name), the server backend one for its server (name "").
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from trustgraph_flow.store.sparql.client import StoreTimeout

log = logging.getLogger(__name__)
BETWEEN = 2.0  # seconds at most between a stalled server's probes
PROBE = 5.0  # seconds a server is given to answer a probe (before a placement; stalled)


def _who(name: str) -> str:
    return f"shard {name!r}" if name else "the SPARQL server"


class Stalls:
    """The stalled servers (name → the timeout that stalled it), each with its probe thread."""

    def __init__(self, ask: Callable[[str], object]) -> None:
        self._ask = ask  # one cheap request to the named shard (a StoreUnavailable if not)
        self._stalled: dict[str, StoreTimeout] = {}
        self._probing: set[str] = set()  # shards with a probe thread (one each)
        self._lock = threading.Lock()
        self._closed = threading.Event()

    def check(self, name: str) -> None:
        """A StoreTimeout naming the shard, as its last request's, while it is stalled."""
        found = self._stalled.get(name)
        if found is not None:
            raise StoreTimeout(found.uri, found.seconds, name)

    def timed_out(self, name: str, exc: StoreTimeout) -> None:
        """A request to the shard timed out: stall it (its probe starts, once)."""
        with self._lock:
            fresh = name not in self._stalled
            self._stalled[name] = exc
            start = name not in self._probing and not self._closed.is_set()
            if start:
                self._probing.add(name)
        if fresh:
            log.warning(
                "%s did not answer within %g s: its collections' requests fail at once "
                "until it answers again (asked every few seconds)",
                _who(name),
                exc.seconds,
            )
        if start:
            threading.Thread(
                target=self._probe, args=(name,), name=f"shard-probe-{name}", daemon=True
            ).start()

    def answered(self, name: str, why: str = "answers again") -> None:
        """The shard answered (or refused: down, not hung): its requests are made again."""
        with self._lock:
            gone = self._stalled.pop(name, None)
        if gone is not None:
            log.warning("%s %s: its collections' requests are made again", _who(name), why)

    def _probe(self, name: str) -> None:
        """Ask the shard until it answers, then end (unless it stalled again meanwhile)."""
        delay = 0.2
        while True:
            with self._lock:
                if name not in self._stalled or self._closed.is_set():
                    self._probing.discard(name)
                    return
            try:
                self._ask(name)
            except StoreTimeout:
                self._closed.wait(delay)
                delay = min(delay * 2, BETWEEN)
                continue
            except Exception as exc:  # refused (down, not hung), or failed: they say so themselves
                self.answered(name, f"answered the probe with an error ({exc})")
                continue
            self.answered(name)

    def close(self) -> None:
        """Stop the probes (each ends after its request in flight)."""
        self._closed.set()
