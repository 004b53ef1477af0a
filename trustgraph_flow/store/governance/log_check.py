"""The check of a collection's whole log (explain ``verify-log``; docs/audit.md): every
chain's entries and signed checkpoint, and each entry whose trace or document is gone from
the store without a tombstone (deleted outside the store).
"""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.integrity import checks
from trustgraph_base.integrity import entries as ent
from trustgraph_base.integrity.keys import Keyring
from trustgraph_base.schema.integrity import IntegrityProblem, Verification
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance import deletion, log


def gone(handle: Handle, newest: dict[str, ent.Signed]) -> list[checks.Problem]:
    """Each subject whose newest entry has no tombstone but whose trace or document is gone
    from the store (deleted outside it)."""
    live = {s: e for s, e in newest.items() if e.tombstone is None}
    present = set(handle.index.rows([s for s, e in live.items() if e.entry.kind == "trace"]))
    present |= {
        s
        for s, e in live.items()
        if e.entry.kind == "document" and deletion.exists(handle.store, ox.NamedNode(s))
    }
    return [
        checks.Problem(
            "deleted",
            f"{subject} is gone from the store, but its log entry has no tombstone: deleted outside the store",
            subject,
        )
        for subject, signed in sorted(live.items())
        # a bundle's seal: nothing in the store to be gone
        if signed.entry.kind in ("trace", "document") and subject not in present
    ]


def as_problem(p: checks.Problem) -> IntegrityProblem:
    return IntegrityProblem(code=p.code, message=p.message, subject=p.subject)


def verify_log(handle: Handle | None, keys: Keyring) -> Verification:
    """Every chain of the collection's log; an entry whose trace is gone without a tombstone."""
    if handle is None:
        return Verification(verified=True)
    chains, heads = log.entries(handle.store), log.heads(handle.store)
    problems: list[checks.Problem] = []
    for chain in sorted(chains.keys() | heads.keys()):
        problems += checks.chain_problems(keys, chain, chains.get(chain, []), heads.get(chain))
    problems += [checks.Problem("unreadable", why) for why in log.unreadable(handle.store)]
    every = [s for chain in chains.values() for _, s in chain]
    newest = ent.latest(every)
    problems += gone(handle, newest)
    return Verification(
        verified=not problems,
        problems=[as_problem(p) for p in problems],
        entries=len(every),
        chains=len(chains),
        erased=sum(1 for s in every if s.tombstone is not None),
        erased_kinds=ent.erased_by_kind(newest.values()),
        keys=sorted({s.entry.kid for s in every}),
    )
