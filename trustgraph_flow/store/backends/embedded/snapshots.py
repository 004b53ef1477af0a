"""Checkpoints of embedded stores for SPARQL's worker processes (``sparql/pool.py``): one per
collection (``Store.backup``: a RocksDB checkpoint of hard links), taken again once the
store process has written since, deleted once its last query is done."""

from __future__ import annotations

import shutil
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from trustgraph_flow.store.backends.embedded.stores import safe_name
from trustgraph_flow.store.core.backend import Handle


@dataclass(eq=False)
class Snapshot:
    path: Path
    generation: int
    users: int = 0
    stale: bool = False


class Snapshots:
    """One checkpoint per collection, taken again once the store has written since."""

    def __init__(self, root: Path) -> None:
        self.root = root
        shutil.rmtree(root, ignore_errors=True)  # a previous run's are of no use
        self.generation = 0  # bumped after every write of the store process
        self._latest: dict[tuple[str, str], Snapshot] = {}
        self._lock = threading.Lock()

    def written(self) -> None:
        with self._lock:
            self.generation += 1

    def acquire(self, key: tuple[str, str], handle: Handle | None) -> Snapshot | None:
        """The collection's current snapshot (None: it has no store); ``release`` it after."""
        with self._lock:
            snap = self._latest.get(key)
            if snap is not None and snap.generation == self.generation and handle is not None:
                snap.users += 1
                return snap
            if snap is not None:
                self._drop(key)
            if handle is None:
                return None
            path = self.root / safe_name("u", key[0]) / safe_name("c", key[1]) / uuid.uuid4().hex
            path.parent.mkdir(parents=True, exist_ok=True)
            assert isinstance(handle.store, ox.Store)  # snapshots are of embedded stores only
            handle.store.backup(str(path))
            snap = Snapshot(path, self.generation, users=1)
            self._latest[key] = snap
            return snap

    def release(self, snap: Snapshot | None) -> None:
        if snap is None:
            return
        with self._lock:
            snap.users -= 1
            if snap.stale and snap.users == 0:
                shutil.rmtree(snap.path, ignore_errors=True)

    def _drop(self, key: tuple[str, str]) -> None:
        snap = self._latest.pop(key)
        snap.stale = True
        if snap.users == 0:
            shutil.rmtree(snap.path, ignore_errors=True)
