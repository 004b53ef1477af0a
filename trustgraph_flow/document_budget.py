"""Each document's time budget for extraction: once it is used up, the document's remaining
chunks are reported without edges, with the reason, so the document ends instead of staying
``processing`` behind a slow or runaway model.

A document may take ``base`` seconds plus ``per_chunk`` for each of its chunks seen so far,
counted from the first: a large document gets the time its size needs at a sane pace, while
a model that spends far longer than ``per_chunk`` on each chunk uses the budget up. The clock
is the process's own: another extractor replica counts its own chunks, and a restarted
extractor starts counting again (each chunk still ends: its LLM call is bounded by the request
timeout).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

Key = tuple[str, str, str]  # user, collection, document


@dataclass
class _Seen:
    first: float
    last: float
    chunks: int = 0


@dataclass
class DocumentClock:
    """How much of each document's budget is left (``base`` 0: no budget)."""

    base: float
    per_chunk: float = 0.0
    clock: Callable[[], float] = time.monotonic
    _docs: dict[Key, _Seen] = field(default_factory=dict)

    def arrived(self, key: Key) -> float | None:
        """A chunk of the document arrived: the seconds left for it (see ``remaining``)."""
        left = self.remaining(key)
        if left is not None:
            self._docs[key].chunks += 1
            left += self.per_chunk
        return left

    def remaining(self, key: Key) -> float | None:
        """Seconds left for the document (<= 0: used up); None without a budget. A document
        none of whose chunks came for a whole ``base`` is forgotten (it ended)."""
        if self.base <= 0:
            return None
        now = self.clock()
        for old in [k for k, seen in self._docs.items() if now - seen.last > self.base]:
            del self._docs[old]
        seen = self._docs.setdefault(key, _Seen(now, now))
        seen.last = now
        return seen.first + self.base + self.per_chunk * seen.chunks - now

    def reason(self) -> str:
        return (
            f"the document's extraction time budget ({self.base:g}s + {self.per_chunk:g}s a "
            "chunk, settings document_budget and chunk_budget) was used up before this chunk "
            "was extracted"
        )
