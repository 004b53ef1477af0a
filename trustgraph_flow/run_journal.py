"""Runs in progress, kept on disk so that a run its process died in is marked at restart.

A traced service (agent, GraphRAG, DocumentRAG) writes one small file per run when it
opens the run's trace and removes it when the run ends, however it ends (answer, error,
failure). A process killed mid-run leaves its files behind; the next process of the same
processor (same data folder) finds them at start-up and publishes, for each, the trace's
end as interrupted (``prov:endedAtTime`` + ``tg:interrupted``), so the trace does not stay
"in progress" forever. See docs/provenance.md.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any, Protocol

from trustgraph_base.messaging import TRIPLES_STORE, Context
from trustgraph_base.provenance import GRAPH_RETRIEVAL, interrupted_triples, now_iso
from trustgraph_base.schema import Metadata, Triples

log = logging.getLogger(__name__)


class RunJournal:
    """The runs of one processor that have opened a trace and not yet ended."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def _path(self, uri: str) -> Path:
        return self.folder / (hashlib.sha256(uri.encode()).hexdigest()[:32] + ".json")

    def open(self, uri: str, user: str, collection: str) -> None:
        entry = {"uri": uri, "user": user, "collection": collection}
        self._path(uri).write_text(json.dumps(entry))

    def close(self, uri: str) -> None:
        self._path(uri).unlink(missing_ok=True)

    def left(self) -> list[dict[str, str]]:
        """Runs a previous process opened and never closed."""
        found = []
        for path in sorted(self.folder.glob("*.json")):
            try:
                entry = json.loads(path.read_text())
                found.append({k: str(entry[k]) for k in ("uri", "user", "collection")})
            except (OSError, ValueError, KeyError, TypeError):
                path.unlink(missing_ok=True)  # half-written as the process died: nothing to mark
        return found


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
        book.close(uri)
        log.warning("marked run %s interrupted: %s", uri, reason)
    return book
