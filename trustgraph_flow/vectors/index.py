"""One vector index per (user, collection, kind): a float32 matrix with ids, texts and documents.

On disk each index is one file, ``<kind>.vec``: an 8-byte little-endian length, a JSON
header (``dim``, ``ids``, ``texts``, ``documents``), then the row-major float32 matrix.
It is written to a temporary file, fsynced and renamed over the old one, so a crash
leaves either the old index or the new one, never a torn file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from trustgraph_base.errors import ServiceError
from trustgraph_base.schema import VectorItem, VectorMatch

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")
_HEADER_LEN = 8


def scope_dir(root: Path, user: str, collection: str) -> Path:
    """A folder name that is safe whatever the user and collection strings are."""
    digest = hashlib.blake2b(f"{user}\0{collection}".encode(), digest_size=8).hexdigest()
    readable = f"{_UNSAFE.sub('_', user)[:40]}--{_UNSAFE.sub('_', collection)[:40]}"
    return root / f"{readable}--{digest}"


def _unit(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero) so a dot product is the cosine."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: np.ndarray = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return unit


def _finite(matrix: np.ndarray) -> np.ndarray:
    if not np.isfinite(matrix).all():
        raise ServiceError("bad-request", "vector holds a NaN or infinite value")
    return matrix


class VectorIndex:
    """The items of one kind in one user's collection, kept in memory and persisted whole."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.dim = 0
        self.ids: list[str] = []
        self.texts: list[str] = []
        self.documents: list[str] = []
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        if path.exists():
            self._load()

    def __len__(self) -> int:
        return len(self.ids)

    def _load(self) -> None:
        data = self.path.read_bytes()
        size = int.from_bytes(data[:_HEADER_LEN], "little")
        header = json.loads(data[_HEADER_LEN : _HEADER_LEN + size])
        self.dim = int(header["dim"])
        self.ids, self.texts, self.documents = header["ids"], header["texts"], header["documents"]
        body = np.frombuffer(data[_HEADER_LEN + size :], dtype="<f4")
        self.matrix = body.reshape(len(self.ids), self.dim).astype(np.float32) if self.ids else body.reshape(0, self.dim)

    def save(self) -> None:
        """Persist atomically (or remove the file when the index is empty)."""
        if not self.ids:
            self.path.unlink(missing_ok=True)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        header = json.dumps(
            {"dim": self.dim, "ids": self.ids, "texts": self.texts, "documents": self.documents},
            ensure_ascii=False,
        ).encode()
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tmp-", suffix=".vec")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(len(header).to_bytes(_HEADER_LEN, "little"))
                out.write(header)
                out.write(self.matrix.astype("<f4", copy=False).tobytes())
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _fsync_dir(self.path.parent)

    def _check_dim(self, dim: int) -> None:
        if dim == 0:
            raise ServiceError("bad-request", "empty vector")
        if self.dim and dim != self.dim:
            raise ServiceError(
                "bad-request", f"vector has {dim} dimensions but this index holds {self.dim}-dimensional vectors"
            )

    def upsert(self, items: Sequence[VectorItem]) -> int:
        """Add items, replacing any with the same id; returns how many were given."""
        dims = {len(item.vector) for item in items}
        if len(dims) > 1:
            raise ServiceError("bad-request", f"items of one upsert differ in dimension: {sorted(dims)}")
        if not items:
            return 0
        self._check_dim(dims.pop())
        latest = {item.id: item for item in items}  # the last of repeated ids wins
        keep = [i for i, id_ in enumerate(self.ids) if id_ not in latest]
        new = _finite(np.asarray([item.vector for item in latest.values()], dtype=np.float32))
        base = self.matrix[keep] if self.ids else np.zeros((0, new.shape[1]), dtype=np.float32)
        self.matrix = np.vstack([base, _unit(new)])
        self.dim = new.shape[1]
        self.ids = [self.ids[i] for i in keep] + list(latest)
        self.texts = [self.texts[i] for i in keep] + [it.text for it in latest.values()]
        self.documents = [self.documents[i] for i in keep] + [it.document for it in latest.values()]
        return len(items)

    def query(self, vector: Sequence[float], limit: int) -> list[VectorMatch]:
        """The ``limit`` items most cosine-similar to ``vector``, best first."""
        self._check_dim(len(vector))
        if not self.ids:
            return []
        query = _unit(_finite(np.asarray([vector], dtype=np.float32)))[0]
        scores = self.matrix @ query
        k = min(limit, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), self.ids[i]))
        return [VectorMatch(id=self.ids[i], score=float(scores[i]), text=self.texts[i]) for i in order]

    def delete_document(self, document: str) -> int:
        """Remove every item that came from ``document``; returns how many."""
        keep = [i for i, doc in enumerate(self.documents) if doc != document]
        removed = len(self.ids) - len(keep)
        if removed:
            self.matrix = self.matrix[keep]
            self.ids = [self.ids[i] for i in keep]
            self.texts = [self.texts[i] for i in keep]
            self.documents = [self.documents[i] for i in keep]
        return removed


def remove_dir(path: Path) -> None:
    """Remove a scope's folder (a collection's every index)."""
    shutil.rmtree(path, ignore_errors=True)


def _fsync_dir(path: Path) -> None:
    """Make a rename durable (not every platform can open a folder)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
