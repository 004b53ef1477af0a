"""Ended traces signed a moment later, in batches, off the write path (the embedded store).

Signing one trace as its batch is written costs a log transaction and a checkpoint
signature each; signing the traces that ended in the last ``signing_delay`` seconds
together costs one of each for all of them (docs/performance.md). So the writer only
notes a newly ended trace in its collection's index (``unsigned``: one sqlite row, written
before the batch is acknowledged) and the store's clock signs what is noted every
``signing_delay`` seconds, on the writer thread. Nothing is lost on a crash: the rows stay
until the trace's entry is written, and a journal (``<data>/signing/unsigned``) names the
collections that may hold some (emptied once nothing waits, at most every minute), so the
next start signs them first. Whatever reads or
erases signatures (verify, the audit log, a deletion) signs the collection's backlog
first, so no one sees a trace that ended as unsigned. A trace signed before (a late
message, an erasure's marks) is signed again at once, as the rule for re-signing needs the
write that changed it.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol, TypeGuard, runtime_checkable

from trustgraph_flow.store.core.backend import Backend, Handle
from trustgraph_flow.store.core.rows import TraceRow
from trustgraph_flow.store.governance import log

logger = logging.getLogger(__name__)
HOLD_MAX = 512  # ended traces held per collection before the writer signs them itself
JOURNAL_KEEP = 60.0  # seconds a collection stays in the journal once its backlog is signed
Key = tuple[str, str]
Sign = Callable[[Handle, list[str]], object]


@runtime_checkable
class Holding(Protocol):
    """An index that can note traces to sign (``backends/embedded/unsigned.py``)."""

    def hold(self, roots: list[str]) -> None: ...
    def held(self) -> list[str]: ...
    def release(self, roots: list[str]) -> None: ...
    def rows(self, roots: Iterable[str]) -> dict[str, TraceRow]: ...


_HOLDING: dict[type, bool] = {}


def holding(index: object) -> TypeGuard[Holding]:
    """``isinstance(index, Holding)``, answered once per class."""
    cls = type(index)
    if cls not in _HOLDING:
        _HOLDING[cls] = isinstance(index, Holding)
    return _HOLDING[cls]


class Backlog:
    """The collections with ended traces noted and not yet signed, and their journal."""

    def __init__(self, journal: Path, limit: int = HOLD_MAX) -> None:
        self.journal, self.limit = journal, limit
        self._lock = threading.Lock()  # the waiting counts and the journal
        self._signing = threading.Lock()  # noting and signing, one at a time
        self._waiting: dict[Key, int] = {}
        self._journaled: set[Key] = set()
        # The journal is emptied at most every JOURNAL_KEEP s (the first time: once what the
        # last run left is signed): naming a collection in it again costs an fsync, too
        # much for every signing pass.
        self._emptied = time.monotonic() - JOURNAL_KEEP
        for line in journal.read_text().splitlines() if journal.exists() else []:
            try:
                user, collection = json.loads(line)
            except (ValueError, TypeError):
                logger.warning("skipping an unreadable line of %s", journal)
                continue
            self._waiting[(user, collection)] = 1  # signed at the first flush
            self._journaled.add((user, collection))

    def defer(self, handle: Handle, ended: list[str], sign: Sign) -> list[str]:
        """Note the ended roots never signed before; the rest, to sign now, returned."""
        index = handle.index
        if not ended or not holding(index):
            return ended
        with self._signing:
            fresh = [r for r in ended if not log.of_subject(handle.store, r)]
            if fresh:
                self._note(handle.key)
                index.hold(fresh)
        with self._lock:
            count = self._waiting[handle.key] = self._waiting.get(handle.key, 0) + len(fresh)
        if count >= self.limit:
            self.sign(handle, sign)
        return [r for r in ended if r not in fresh]

    def _note(self, key: Key) -> None:
        """Name the collection in the journal (once per process and collection), durably."""
        with self._lock:
            if key in self._journaled:
                return
            self.journal.parent.mkdir(parents=True, exist_ok=True)
            with self.journal.open("a") as f:
                f.write(json.dumps(list(key)) + "\n")
                f.flush()
                os.fsync(f.fileno())
            self._journaled.add(key)

    def sign(self, handle: Handle, sign: Sign) -> int:
        """Sign every ended trace noted in this collection; how many."""
        if not holding(handle.index):
            return 0
        with self._signing:
            with self._lock:
                self._waiting.pop(handle.key, None)
            roots = handle.index.held()
            if not roots:
                return 0
            rows = handle.index.rows(roots)
            ended = sorted(r for r, row in rows.items() if row.status != "in-progress")
            if ended:
                sign(handle, ended)
            handle.index.release(roots)  # a root gone from the index is released too
            return len(ended)

    def waiting(self) -> bool:
        with self._lock:
            return bool(self._waiting)

    def flush(self, stores: Backend, sign: Sign) -> int:
        """Sign the backlog of every collection that has one (the store's clock, at start and
        at stop); the journal is emptied once nothing waits."""
        with self._lock:
            keys = list(self._waiting)
        count = 0
        for user, collection in keys:
            with stores.lease(user, collection) as handle:
                if handle is None:  # dropped since
                    with self._lock:
                        self._waiting.pop((user, collection), None)
                    continue
                count += self.sign(handle, sign)
        with self._lock:
            now = time.monotonic()
            if not self._waiting and self._journaled and now - self._emptied >= JOURNAL_KEEP:
                self.journal.write_text("")
                self._journaled.clear()
                self._emptied = now
        return count

    def forget(self, key: Key) -> None:
        with self._lock:
            self._waiting.pop(key, None)
