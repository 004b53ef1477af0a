"""A logger's lines as a test sees them: each record it emits (at any level) handed to a
callable while a block runs."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def told(name: str, emit: Callable[[logging.LogRecord], object]) -> Iterator[None]:
    """Every record logger ``name`` emits while the block runs, down to DEBUG, to ``emit``
    (on the thread that logs it); the logger's level is restored after."""
    logger = logging.getLogger(name)

    class Told(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            emit(record)

    handler, level = Told(logging.DEBUG), logger.level
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
