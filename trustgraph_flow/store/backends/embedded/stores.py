"""The embedded backend: on-disk stores, one directory per (user, collection), opened lazily and kept in a bounded LRU."""

from __future__ import annotations

import gc
import hashlib
import json
import logging
import shutil
import threading
from collections import OrderedDict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, unquote

import pyoxigraph as ox

from trustgraph_flow.store.backends.embedded.trace_index import TraceIndex
from trustgraph_flow.store.core.backend import Handle

log = logging.getLogger(__name__)

_MAX_NAME = 100
SCOPE_FILE = "scope.json"  # names the (user, collection) a store directory holds: hashed names are not reversible
FLUSH_QUADS = 20_000
"""Quads written to a store in transactions (``Store.extend``: a trace's messages, small
groups) after which its memtables are flushed to disk, on a thread of their own. RocksDB as
pyoxigraph sets it up keeps up to 128 MB a column family in memory, a skip list each: an
insert there cost ~16 us a quad in a new store and ~65 once it held 360,000 quads, most of it
cache misses (``RecomputeSpliceLevels``); flushed every 20,000 quads, ~14 on the writer thread
and 29 with the flushes and compactions (docs/performance.md, session 25)."""


def safe_name(prefix: str, text: str) -> str:
    """A directory name for user text, distinct for distinct texts by construction.

    ``<prefix>-<percent-encoded>`` (percent-encoding is injective, and never yields '.' or
    '..'), or, when that is longer than 100 characters, ``<prefix>h-<sha256>``: its second
    character is ``h``, never the ``-`` of an encoded name, so no literal name can reach a
    hashed one's directory.
    """
    encoded = quote(text, safe="-_")
    if len(encoded) > _MAX_NAME:
        return f"{prefix}h-{hashlib.sha256(text.encode()).hexdigest()}"
    return f"{prefix}-{encoded}"


def legacy_name(prefix: str, text: str) -> str | None:
    """The pre-injective directory of a long name (``<prefix>-h<sha256>``), else None."""
    if len(quote(text, safe="-_")) > _MAX_NAME:
        return f"{prefix}-h{hashlib.sha256(text.encode()).hexdigest()}"
    return None


class Stores:
    """Every (user, collection) store under ``root``; only this object opens them.

    Thread-safe: the writer thread and the reader threads lease handles; a handle evicted
    from the LRU (or dropped) while leased is closed when its last lease ends, and one
    evicted but still leased is revived rather than opened twice (RocksDB refuses that).
    """

    def __init__(self, root: Path, capacity: int = 32) -> None:
        self.root = root
        self.capacity = capacity
        self._lock = threading.Lock()
        self._open: OrderedDict[tuple[str, str], Handle] = OrderedDict()
        self._retired: list[Handle] = []
        self._extended: dict[tuple[str, str], int] = {}  # quads in transactions since a flush
        self._flushing: set[tuple[str, str]] = set()
        self._flushed = threading.Condition(self._lock)
        self._flusher: ThreadPoolExecutor | None = None

    def path(self, user: str, collection: str) -> Path:
        """The directory of one collection's store."""
        return self.root / safe_name("u", user) / safe_name("c", collection)

    def _migrate(self, user: str, collection: str) -> None:
        """Move a long name's store from its old hashed directory to its injective one.

        The old form (``u-h<sha256>``) was also what a user literally named ``h<sha256>``
        got; the long name's owner is taken as the owner (a literal 64-hex name is
        what the collision attack used). Done once, logged.
        """
        old_user = legacy_name("u", user) or safe_name("u", user)
        old_coll = legacy_name("c", collection) or safe_name("c", collection)
        old, new = self.root / old_user / old_coll, self.path(user, collection)
        if old != new and old.is_dir() and not new.exists():
            new.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            old.rename(new)
            log.warning("moved store %s to %s (collision-free directory names)", old, new)

    @contextmanager
    def lease(
        self, user: str, collection: str, *, create: bool = False, as_empty: bool = False
    ) -> Iterator[Handle | None]:
        """The open store of one collection for the ``with`` block; None when absent and not
        ``create`` (``as_empty`` too: telling costs nothing here)."""
        with self._lock:
            handle = self._acquire((user, collection), create)
        try:
            yield handle
        finally:
            if handle is not None:
                with self._lock:
                    self._release(handle)

    def get(self, user: str, collection: str, *, create: bool = False) -> Handle | None:
        """The open store of one collection, unleased (single-threaded callers and tests)."""
        with self.lease(user, collection, create=create) as handle:
            return handle

    def _acquire(self, key: tuple[str, str], create: bool) -> Handle | None:
        handle = self._open.get(key)
        if handle is None:
            handle = next((h for h in self._retired if h.key == key and not h.dropped), None)
            if handle is not None:
                self._retired.remove(handle)
                handle.retired = False
            else:
                self._migrate(*key)
                path = self.path(*key)
                if not create and not path.is_dir():
                    return None
                path.mkdir(parents=True, exist_ok=True)
                (path / SCOPE_FILE).write_text(json.dumps({"user": key[0], "collection": key[1]}))
                new = not (path / "oxigraph").exists()
                index = TraceIndex(path / "traces.sqlite")
                if new:  # nothing in it the index does not map (``claims.py``)
                    index.cover()
                handle = Handle(key, path, ox.Store(str(path / "oxigraph")), index)
                handle.index.backfill(handle.store)  # traces older than the lineage index
            self._open[key] = handle
        self._open.move_to_end(key)
        handle.users += 1
        while len(self._open) > self.capacity:
            _, old = self._open.popitem(last=False)
            self._retire(old)
        return handle

    def _retire(self, handle: Handle) -> None:
        if handle.users:
            handle.retired = True
            self._retired.append(handle)
        else:
            handle.close()

    def _release(self, handle: Handle) -> None:
        handle.users -= 1
        if handle.users == 0 and handle.retired:
            self._retired.remove(handle)
            handle.close()

    def extended(self, handle: Handle, quads: int) -> None:
        """The writer wrote ``quads`` into the handle's store in a transaction: past
        ``FLUSH_QUADS`` since the last flush, its memtables are flushed on the flusher
        thread, under a lease (an eviction meanwhile retires the handle, as for a reader)."""
        with self._lock:
            count = self._extended.get(handle.key, 0) + quads
            if count < FLUSH_QUADS or handle.key in self._flushing:
                self._extended[handle.key] = count
                return
            self._extended[handle.key] = 0
            self._flushing.add(handle.key)
            handle.users += 1
            if self._flusher is None:
                self._flusher = ThreadPoolExecutor(1, thread_name_prefix="store-flush")
            self._flusher.submit(self._flush, handle)

    def _flush(self, handle: Handle) -> None:
        try:
            handle.store.flush()
        except Exception:  # a later flush, or the close, writes them: nothing is lost
            log.exception("flushing the store of %s failed", handle.key)
        finally:
            with self._lock:
                self._flushing.discard(handle.key)
                self._release(handle)
                self._flushed.notify_all()

    def reached(self) -> tuple[list[tuple[str, str]], list[str]]:
        return self.scopes(), []  # one store: it answers or the caller is told

    def scopes(self) -> list[tuple[str, str]]:
        """The (user, collection) of every store on disk (from the scope file each one keeps)."""
        found = []
        for path in sorted(self.root.glob("u-*/c-*")):
            try:
                data = json.loads((path / SCOPE_FILE).read_text())
                found.append((str(data["user"]), str(data["collection"])))
            except FileNotFoundError:  # a store from before scope files: its names, if not hashed
                user, collection = unquote(path.parent.name[2:]), unquote(path.name[2:])
                if self.path(user, collection) == path:
                    found.append((user, collection))
            except (OSError, ValueError, KeyError, TypeError):
                log.warning("unreadable scope file in %s: skipped", path)
        return found

    def drop(self, user: str, collection: str) -> bool:
        """Close and delete a collection's store; False when there was none."""
        with self._lock:
            self._flushed.wait_for(lambda: (user, collection) not in self._flushing)
            self._extended.pop((user, collection), None)
            handle = self._open.pop((user, collection), None)
            if handle is not None:
                self._retire(handle)
                handle.dropped = True
            del handle
            gc.collect()  # the RocksDB handle closes when its Store is freed
            path = self.path(user, collection)
            if not path.is_dir():
                return False
            shutil.rmtree(path)
            return True

    def close(self) -> None:
        with self._lock:
            self._flushed.wait_for(lambda: not self._flushing)
            for handle in [*self._open.values(), *self._retired]:
                handle.close()
            self._open.clear()
            self._retired.clear()
        if self._flusher is not None:
            self._flusher.shutdown()
            self._flusher = None
