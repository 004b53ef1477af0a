"""A processor's counters, gauges and timings, cheap enough for every message's path.

Each value is kept under its metric name and a tuple of label pairs; a timing is two
counters, ``<name>_sum`` (seconds) and ``<name>_count``, as Prometheus keeps a summary.
Labels name processors, routes, models and outcomes, never a user, a collection or a
message's content: the metrics are for operators and reveal no user's data.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from time import perf_counter

Labels = tuple[tuple[str, str], ...]


class Meter:
    """Counters only grow; gauges are set or moved up and down (work in flight)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # handlers run on the loop and on worker threads
        self.counters: dict[tuple[str, Labels], float] = {}
        self.gauges: dict[tuple[str, Labels], float] = {}

    def add(self, name: str, value: float = 1.0, **labels: str) -> None:
        key = (name, tuple(sorted(labels.items())))
        with self._lock:
            self.counters[key] = self.counters.get(key, 0.0) + value

    def move(self, name: str, by: float, **labels: str) -> None:
        key = (name, tuple(sorted(labels.items())))
        with self._lock:
            self.gauges[key] = self.gauges.get(key, 0.0) + by

    def observe(self, name: str, seconds: float, **labels: str) -> None:
        key = tuple(sorted(labels.items()))
        with self._lock:
            total, count = (name + "_sum", key), (name + "_count", key)
            self.counters[total] = self.counters.get(total, 0.0) + seconds
            self.counters[count] = self.counters.get(count, 0.0) + 1

    @contextmanager
    def timed(self, name: str, **labels: str) -> Iterator[None]:
        """Time the block as ``name`` (a summary) and count it in flight while it runs."""
        self.move("in_flight", 1, **labels)
        started = perf_counter()
        try:
            yield
        finally:
            self.observe(name, perf_counter() - started, **labels)
            self.move("in_flight", -1, **labels)

    def samples(self) -> list[tuple[str, str, Labels, float]]:
        """Every value now: (kind ``counter`` or ``gauge``, name, labels, value)."""
        with self._lock:
            out = [("counter", n, ls, v) for (n, ls), v in self.counters.items()]
            out += [("gauge", n, ls, v) for (n, ls), v in self.gauges.items()]
        return out
