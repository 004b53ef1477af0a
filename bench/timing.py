"""Timing a call the same way in every benchmark."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def timed(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """Call ``fn`` ``runs`` times; the median and p95 of its wall time, in milliseconds."""
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return statistics.median(samples), samples[max(0, int(len(samples) * 0.95) - 1)]
