"""The embedded index's reads of its agent-step read model (``step_facts``): the shown facts
of a range of steps (and their calls), and what every step and call derives from."""

from __future__ import annotations

import sqlite3

from trustgraph_base.provenance.namespaces import PROV
from trustgraph_base.provenance.uris import agent_step_index
from trustgraph_flow.store.core.backend import StepFacts


def step_facts(db: sqlite3.Connection, root: str, uris: list[str]) -> StepFacts:
    """The read model's facts of agent steps ``uris`` of ``root`` (a range of its steps),
    step URI → predicate IRI → values, with an entry for every step asked for."""
    out: StepFacts = {uri: {} for uri in uris}
    found = {n for uri in uris if (n := agent_step_index(root, uri)) is not None}
    if not found:
        return out
    cur = db.execute(
        "SELECT uri, n, pred, value FROM step_facts WHERE root = ? AND n BETWEEN ? AND ?",
        (root, min(found), max(found)),
    )
    for uri, n, pred, value in cur:
        by_pred = out.get(uri)
        if by_pred is None and n in found:  # a call of a step asked for (…/i{n}/c{k})
            by_pred = out[uri] = {}
        if by_pred is not None:
            by_pred.setdefault(pred, []).append(value)
    return out


def step_parents(db: sqlite3.Connection, root: str) -> dict[str, list[str]]:
    """What each agent step and call of ``root`` derives from (the whole trace's graph,
    from the read model: one range of rows)."""
    out: dict[str, list[str]] = {}
    for uri, value in db.execute(
        "SELECT uri, value FROM step_facts WHERE root = ? AND pred = ?",
        (root, PROV.wasDerivedFrom.i),
    ):
        out.setdefault(uri, []).append(value)
    return out
