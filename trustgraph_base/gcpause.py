"""Pausing Python's cyclic garbage collector while a large view is built."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_was_enabled = True


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic collection inside the block (in any thread) until the last holder leaves.

    Building a view of thousands of steps allocates hundreds of thousands of objects that
    all live on; meanwhile the collector would walk the whole heap again and again (a third
    of the time of a 20,000-step trace). Reference counting still frees what is dropped.
    """
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()


def paused() -> bool:
    """Whether a ``gc_paused`` block is running now (in any thread)."""
    return _holders > 0


YOUNG_THRESHOLD = 10_000
"""Allocations between two collections of the youngest generation in a serving process
(CPython's default is 700). A message's models are thousands of objects (a 300-triple reply
is ~2,000) that live until it is answered: at 700 each one was walked by several young
collections and pushed into the older generations, whose collections then walked them again
(decoding such a reply with 20 in flight: ~1.9 ms of CPU at 700, ~0.86 ms at 10,000)."""


_serving = 0  # processes' worth of ``serving_collector`` blocks open (tests run several)
_threshold_before = (700, 10, 10)


@contextmanager
def serving_collector() -> Iterator[None]:
    """While a process serves: what it loaded so far (modules, pydantic's schemas, its
    state) frozen out of the cyclic collector, and the youngest generation collected every
    ``YOUNG_THRESHOLD`` allocations (the older generations' thresholds are left as they are:
    the store runs its full collections on a clock). Both undone once the last such block
    ends (a test's process runs several processors, in turn and at once)."""
    global _serving, _threshold_before
    with _lock:
        if _serving == 0:
            _threshold_before = gc.get_threshold()
        _serving += 1
        gc.freeze()
        young, older, oldest = gc.get_threshold()
        gc.set_threshold(max(young, YOUNG_THRESHOLD), older, oldest)
    try:
        yield
    finally:
        with _lock:
            _serving -= 1
            if _serving == 0:
                gc.set_threshold(*_threshold_before)
                gc.unfreeze()
