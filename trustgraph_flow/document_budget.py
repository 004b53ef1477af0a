"""Each document's time budget for extraction: once it is used up, the document's remaining
chunks are reported without edges, with the reason, so the document ends instead of staying
``processing`` behind a slow or runaway model.

The clock of a document starts when this process first sees one of its chunks. It is the
process's own: another extractor replica counts its own chunks, and a restarted extractor
starts counting again (each chunk still ends: its LLM call is bounded by the request timeout).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

Key = tuple[str, str, str]  # user, collection, document


@dataclass
class DocumentClock:
    """How much of each document's ``budget`` (seconds; 0: none) is left."""

    budget: float
    clock: Callable[[], float] = time.monotonic
    _seen: dict[Key, tuple[float, float]] = field(default_factory=dict)  # first, last

    def remaining(self, key: Key) -> float | None:
        """Seconds left for the document (<= 0: used up), counted from its first chunk
        seen here; None without a budget. A document none of whose chunks came for a whole
        budget is forgotten (it ended)."""
        if self.budget <= 0:
            return None
        now = self.clock()
        for old in [k for k, (_, last) in self._seen.items() if now - last > self.budget]:
            del self._seen[old]
        first = self._seen.get(key, (now, now))[0]
        self._seen[key] = (first, now)
        return first + self.budget - now

    def reason(self) -> str:
        return (
            f"the document's extraction time budget ({self.budget:g}s, setting "
            "document_budget) was used up before this chunk was extracted"
        )
