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
