"""Runs in progress, kept on disk so that a run its process died in is marked at restart.

A traced service (agent, GraphRAG, DocumentRAG) appends one line to its journal when it
opens a run's trace and another when the run ends, however it ends (answer, error,
failure). A process killed mid-run leaves runs opened and never closed; the next process
of the same processor (same data folder) finds them at start-up and publishes, for each,
the trace's end as interrupted (``prov:endedAtTime`` + ``tg:interrupted``), so the trace
does not stay "in progress" forever. See docs/provenance.md.

The journal is one file held open for appending (``runs/journal.log``): a run costs two
small writes, where a file per run cost a create and an unlink (more than the rest of a
trace step's work). What the writes survive is the same: a killed process's lines are in
the file (no fsync, as before: a lost machine loses the journal's last writes).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections import Counter
from pathlib import Path
from typing import Any, Protocol

from trustgraph_base.messaging import TRIPLES_STORE, Context
from trustgraph_base.provenance import GRAPH_RETRIEVAL, interrupted_triples, now_iso
from trustgraph_base.schema import Metadata, Triples

log = logging.getLogger(__name__)

LOG_NAME = "journal.log"
# Once the log has grown past this, it is written again with only the runs still open.
COMPACT_BYTES = 1 << 20


class RunJournal:
    """The runs of one processor that have opened a trace and not yet ended."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._fd: int | None = None
        # The runs open now: their user and collection, and how many (a caller may run one
        # session id twice at once).
        self._open: dict[str, tuple[str, str]] = {}
        self._count: Counter[str] = Counter()
        self._size = 0

    def _write(self, entry: dict[str, str]) -> None:
        if self._fd is None:
            path = self.folder / LOG_NAME
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            self._size = os.fstat(self._fd).st_size
        line = _line(entry)
        os.write(self._fd, line)
        self._size += len(line)

    def open(self, uri: str, user: str, collection: str) -> None:
        self._write({"open": uri, "user": user, "collection": collection})
        self._open[uri] = (user, collection)
        self._count[uri] += 1

    def close(self, uri: str) -> None:
        self._count[uri] -= 1
        if self._count[uri] > 0:
            return  # the same id is still running: its line must stay open
        del self._count[uri]
        self._open.pop(uri, None)
        self._write({"close": uri})
        if self._size > COMPACT_BYTES:
            self.compact()

    def compact(self) -> None:
        """Write the log again with only the runs open now (a busy process may never be
        without one). The new log replaces the old one whole (``os.replace``): a process
        killed meanwhile leaves one or the other, and either names every open run."""
        fresh = self.folder / (LOG_NAME + ".new")
        lines = b"".join(
            _line({"open": uri, "user": user, "collection": collection})
            for uri, (user, collection) in self._open.items()
        )
        fresh.write_bytes(lines)
        os.replace(fresh, self.folder / LOG_NAME)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        self._size = len(lines)

    def left(self) -> list[dict[str, str]]:
        """Runs a previous process opened and never closed (in the order they opened)."""
        found: dict[str, dict[str, str]] = {}
        for path in sorted(self.folder.glob("*.json")):  # one file per run: older versions
            try:
                entry = json.loads(path.read_text())
                found[str(entry["uri"])] = {k: str(entry[k]) for k in ("uri", "user", "collection")}
            except (OSError, ValueError, KeyError, TypeError):
                path.unlink(missing_ok=True)  # half-written as the process died: nothing to mark
        try:
            lines = (self.folder / LOG_NAME).read_bytes().splitlines()
        except FileNotFoundError:
            lines = []
        for line in lines:
            try:
                entry = json.loads(line)
                if "open" in entry:
                    uri = str(entry["open"])
                    found[uri] = {
                        "uri": uri,
                        "user": entry["user"],
                        "collection": entry["collection"],
                    }
                else:
                    found.pop(str(entry["close"]), None)
            except (ValueError, KeyError, TypeError, AttributeError):
                continue  # half-written as the process died: nothing to mark
        return list(found.values())

    def forget(self, uri: str) -> None:
        """A run ``left`` returned is marked: it is no longer open."""
        # Older versions' file of the run (named by its URI's digest), if it has one.
        (self.folder / (hashlib.sha256(uri.encode()).hexdigest()[:32] + ".json")).unlink(
            missing_ok=True
        )
        self._write({"close": uri})


def _line(entry: dict[str, str]) -> bytes:
    return (json.dumps(entry, ensure_ascii=False) + "\n").encode()


class Journaled(Protocol):
    """The state of a traced service: it holds the service's run journal."""

    @property
    def journal(self) -> RunJournal: ...


async def open_journal(ctx: Context[Any]) -> RunJournal:
    """Open the journal (at start, in a lifespan hook) and mark every run a dead predecessor left."""
    name = ctx.client_name
    book = RunJournal(Path(ctx.settings.data_dir) / name / "runs")
    for entry in book.left():
        uri = entry["uri"]
        reason = f"the {name} process stopped before this run finished"
        meta = Metadata(id=uri, user=entry["user"], collection=entry["collection"])
        triples = interrupted_triples(uri, GRAPH_RETRIEVAL, reason, now_iso())
        await ctx.publish(TRIPLES_STORE, Triples(metadata=meta, triples=triples))
        book.forget(uri)
        log.warning("marked run %s interrupted: %s", uri, reason)
    book.compact()  # every run left is marked
    return book
