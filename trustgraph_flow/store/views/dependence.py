"""What an agent's answer depends on (SPEC.md, the agent graph): the steps its conclusion
reaches back to through what each step used. Evidence a dead-end step's tool found — a
sub-trace under a step the answer does not rely on — is not evidence the answer used."""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.agent import FAILED_RUN
from trustgraph_base.provenance.namespaces import PROV, TG
from trustgraph_base.provenance.uris import (
    agent_final_uri,
    agent_step_of,
    trace_kind,
)
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.views.agent_graph import depended_on
from trustgraph_flow.store.views.explain import step_parents
from trustgraph_flow.store.views.lookup import RETRIEVAL


class Dependence:
    """Per top-level trace, the steps and calls its answer depends on (read once each)."""

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self.known: dict[str, set[str] | None] = {}

    def of(self, top: str) -> set[str] | None:
        """The entities the answer of ``top`` depends on; None: every step counts (not an
        agent trace, no conclusion yet, or the run failed: nothing to tell apart)."""
        if top not in self.known:
            self.known[top] = self._read(top)
        return self.known[top]

    def _read(self, top: str) -> set[str] | None:
        if trace_kind(top) != "agent":
            return None
        final = ox.NamedNode(agent_final_uri(top))
        quads = self.handle.store.quads_for_pattern(
            final, ox.NamedNode(PROV.wasDerivedFrom.i), None, RETRIEVAL
        )
        ending = [q.object.value for q in quads if isinstance(q.object, ox.NamedNode)]
        if not ending or failed_run(self.handle, final):
            return None
        return depended_on(top, ending, step_parents(self.handle, top, {}))

    def used(self, top: str, parent: str | None) -> bool:
        """Whether evidence found by a sub-trace run from ``parent`` (an agent step or call of
        ``top``; None: the top-level trace's own) is evidence ``top``'s answer used."""
        deps = self.of(top)
        if deps is None or parent is None or parent == top:
            return True
        return agent_step_of(top, parent) is None or parent in deps


def failed_run(handle: Handle, final: ox.NamedNode) -> bool:
    """Whether the conclusion ``final`` ends a run that failed (no answer to depend on)."""
    reason = ox.NamedNode(TG.terminationReason.i)
    return any(
        q.object == _FAILED for q in handle.store.quads_for_pattern(final, reason, None, RETRIEVAL)
    )


_FAILED = ox.Literal(FAILED_RUN)
