"""On-disk stores, one directory per (user, collection), opened lazily and kept in a bounded LRU."""

from __future__ import annotations

import gc
import hashlib
import logging
import shutil
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pyoxigraph as ox

from trustgraph_flow.store.index import TraceIndex

log = logging.getLogger(__name__)

_MAX_NAME = 100


def safe_name(prefix: str, text: str) -> str:
    """A directory name for user text: percent-encoded, or hashed when long; never '.' or '..'."""
    encoded = quote(text, safe="-_")
    if len(encoded) > _MAX_NAME:
        encoded = "h" + hashlib.sha256(text.encode()).hexdigest()
    return f"{prefix}-{encoded}"


@dataclass
class Handle:
    """An open store and its trace index."""

    path: Path
    store: ox.Store
    index: TraceIndex

    def close(self) -> None:
        self.store.flush()
        self.index.close()


class Stores:
    """Every (user, collection) store under ``root``; only this object opens them."""

    def __init__(self, root: Path, capacity: int = 32) -> None:
        self.root = root
        self.capacity = capacity
        self._open: OrderedDict[tuple[str, str], Handle] = OrderedDict()

    def path(self, user: str, collection: str) -> Path:
        return self.root / safe_name("u", user) / safe_name("c", collection)

    def get(self, user: str, collection: str, *, create: bool = False) -> Handle | None:
        """The open store of one collection; None when it does not exist and ``create`` is false."""
        key = (user, collection)
        found = self._open.get(key)
        if found is not None:
            self._open.move_to_end(key)
            return found
        path = self.path(user, collection)
        if not create and not path.is_dir():
            return None
        path.mkdir(parents=True, exist_ok=True)
        handle = Handle(path, ox.Store(str(path / "oxigraph")), TraceIndex(path / "traces.sqlite"))
        self._open[key] = handle
        while len(self._open) > self.capacity:
            _, old = self._open.popitem(last=False)
            old.close()
        return handle

    def drop(self, user: str, collection: str) -> bool:
        """Close and delete a collection's store; False when there was none."""
        handle = self._open.pop((user, collection), None)
        if handle is not None:
            handle.close()
            del handle
            gc.collect()  # the RocksDB handle closes when its Store is freed
        path = self.path(user, collection)
        if not path.is_dir():
            return False
        shutil.rmtree(path)
        return True

    def close(self) -> None:
        while self._open:
            _, handle = self._open.popitem()
            handle.close()
