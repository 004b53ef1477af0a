"""Which step each span of an imported trace became (``to_prov``): remembered per gateway
process, so a trace's spans sent in several requests continue its numbering."""

from __future__ import annotations

import threading
from collections import OrderedDict

from trustgraph_base.provenance.uris import agent_iteration_uri
from trustgraph_flow.otel.spans import Span

REMEMBERED = 10_000  # traces whose step numbers a gateway process remembers

Known = dict[bytes, tuple[str, bytes]]  # span id → (its entity, its parent span's id)


class Steps:
    """Which step each span of a trace became, remembered for the last ``REMEMBERED`` traces
    so that a trace's spans sent in several requests continue its numbering. Shared by the
    gateway's mapping threads: a trace's spans are numbered under the lock, in one short
    step, and its triples made from a copy of what is known then (``number``)."""

    def __init__(self) -> None:
        self.traces: OrderedDict[bytes, Known] = OrderedDict()
        self.lock = threading.Lock()

    def of(self, trace_id: bytes) -> Known:
        known = self.traces.pop(trace_id, None)
        self.traces[trace_id] = known = known if known is not None else {}
        while len(self.traces) > REMEMBERED:
            self.traces.popitem(last=False)
        return known

    def number(self, trace_id: bytes, q: str, spans: list[Span]) -> Known:
        """Give each new span of the trace (``spans`` in order of start) its step; a copy
        of every span known of the trace then."""
        with self.lock:
            known = self.of(trace_id)
            # the last step given: worked out once, not per span
            last = max((step_number(q, u) for u, _ in known.values()), default=0)
            for s in spans:
                if not s.parent_id:
                    known[s.span_id] = (q, b"")
                elif s.span_id not in known:
                    last += 1
                    known[s.span_id] = (agent_iteration_uri(q, last), s.parent_id)
            return dict(known)


def step_number(q: str, uri: str) -> int:
    """The n of step ``…/i{n}`` of trace ``q`` (0 for the question itself)."""
    tail = uri[len(q) + 2 :] if uri.startswith(q + "/i") else ""
    return int(tail) if tail.isdigit() else 0
