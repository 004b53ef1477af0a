"""The exporter's buffer: trace messages gathered into whole traces, bounded.

Each ``explain-store`` message's ``urn:graph:retrieval`` quads go to the top-level trace
their subject belongs to (a sub-trace's question names the analysis that ran it, so its
entities join the agent's trace). A trace is ready once its last stage is in (the agent's
conclusion, a top-level RAG synthesis, a failure or an interruption) and nothing more came
for ``linger`` seconds, or after ``idle`` seconds without a message (a run still going, or
cut short). At most ``limit`` traces are held: past that the oldest is given up, counted.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, PROV, TG
from trustgraph_base.provenance.uris import is_conclusion_uri, trace_root
from trustgraph_flow.otel.trace import Trace

_DERIVED = PROV.wasDerivedFrom.i
_ENDS = (TG.error.i, TG.interrupted.i)


class Gathered:
    """Traces being gathered, oldest first; ``ready`` hands over those complete."""

    def __init__(self, *, linger: float = 0.5, idle: float = 60.0, limit: int = 10_000) -> None:
        self.linger, self.idle, self.limit = linger, idle, limit
        self.traces: OrderedDict[str, Trace] = OrderedDict()
        self.seen: dict[str, float] = {}  # top root → when its last message came
        self.ended: set[str] = set()  # top roots whose last stage is in
        self.top: dict[str, str] = {}  # a sub-trace's root → the top-level root it is under
        self.given_up = 0  # traces dropped because too many were held

    def add(
        self, quads: Iterable[ox.Quad], now: float | None = None, scope: tuple[str, str] = ("", "")
    ) -> None:
        """One message's quads (those of the retrieval graph; others are ignored), of the
        user and collection ``scope``."""
        now = time.monotonic() if now is None else now
        arrived = time.time_ns()
        for q in quads:
            s, g = q.subject, q.graph_name
            if type(s) is not ox.NamedNode or type(g) is not ox.NamedNode:
                continue
            if g.value != GRAPH_RETRIEVAL:
                continue
            root = trace_root(s.value)
            if root is None:
                continue
            p, o = q.predicate.value, q.object
            if s.value == root and p == _DERIVED and isinstance(o, ox.NamedNode):
                parent = trace_root(o.value)
                if parent is not None and parent != root:  # a sub-trace: joins its caller's
                    self.top[root] = self.top.get(parent, parent)
                    self._join(root, self.top[root])
            top = self.top.get(root, root)
            trace = self.traces.get(top)
            if trace is None:
                trace = self.traces[top] = Trace(top, user=scope[0], collection=scope[1])
            value = o.value if isinstance(o, ox.NamedNode | ox.Literal) else str(o)
            values = trace.facts.setdefault(s.value, {}).setdefault(p, [])
            if value not in values:
                values.append(value)
            trace.arrived.setdefault(s.value, arrived)
            self.seen[top] = now
            if top == root and (
                is_conclusion_uri(root, s.value) or (s.value == root and p in _ENDS)
            ):
                self.ended.add(top)
        while len(self.traces) > self.limit:
            oldest, _ = self.traces.popitem(last=False)
            self._forget(oldest)
            self.given_up += 1

    def _join(self, sub: str, top: str) -> None:
        """What was gathered under a sub-trace's own root before it was known as one."""
        early = self.traces.pop(sub, None)
        if early is None:
            return
        trace = self.traces.get(top)
        if trace is None:
            trace = self.traces[top] = Trace(top)
        for uri, objects in early.facts.items():
            for p, values in objects.items():
                into = trace.facts.setdefault(uri, {}).setdefault(p, [])
                into.extend(v for v in values if v not in into)
        for uri, when in early.arrived.items():
            trace.arrived.setdefault(uri, when)
        self.seen.pop(sub, None)
        self.ended.discard(sub)

    def ready(self, now: float | None = None) -> list[Trace]:
        """The traces to send now, removed from the buffer."""
        now = time.monotonic() if now is None else now
        out = []
        for top in list(self.traces):
            quiet = now - self.seen.get(top, now)
            if (top in self.ended and quiet >= self.linger) or quiet >= self.idle:
                out.append(self.traces.pop(top))
                self._forget(top)
        return out

    def flush(self) -> list[Trace]:
        """Every trace held, ready or not (at shutdown)."""
        out = list(self.traces.values())
        for top in list(self.traces):
            self._forget(top)
        self.traces.clear()
        return out

    def _forget(self, top: str) -> None:
        self.seen.pop(top, None)
        self.ended.discard(top)
        for sub in [s for s, t in self.top.items() if t == top]:
            del self.top[sub]
