"""The log read and checked in pages (explain ``audit-log`` and ``verify-log`` with a
``cursor``: empty for the first page, the reply's for the next; docs/audit.md).

A long log is more than one reply holds (4 MB, ~5,000 entries), and checking it whole
says nothing until the end. A page is ``limit`` entries in chain and position order; each
chain is checked across pages (a page starts from the hash and position of the entry
before it, and a chain's checkpoint is checked on the page where the chain ends), so the
pages together find what one whole check finds, and the command can show its progress.
Each page finds its place by one scan of the log's entry IRIs (no entry is parsed but
the page's).
"""

from __future__ import annotations

import bisect

import pyoxigraph as ox

from trustgraph_base.integrity import checks
from trustgraph_base.integrity import entries as ent
from trustgraph_base.integrity.keys import Keyring
from trustgraph_base.schema.integrity import Verification
from trustgraph_flow.store.core.backend import Handle, QuadStore
from trustgraph_flow.store.governance import log
from trustgraph_flow.store.governance.log_check import as_problem, gone

Stored = tuple[str, int, ox.NamedNode, object]  # chain, position, entry IRI, record literal
LAST = 1 << 62  # past any position


def stored(store: QuadStore) -> list[Stored]:
    """Every entry of the log as stored, by chain and position."""
    out: list[Stored] = []
    for q in store.quads_for_pattern(None, log.RECORD, None, log.GRAPH):
        if isinstance(q.subject, ox.NamedNode) and (where := log.position(q.subject)):
            out.append((where[0], where[1], q.subject, q.object))
    out.sort(key=lambda x: (x[0], x[1]))
    return out


def page_of(found: list[Stored], cursor: str, limit: int) -> tuple[int, int, str | None]:
    """The page after ``cursor`` (``chain:position`` of the last entry sent, empty: from the
    start): its bounds in ``found`` and the next page's cursor (None: the last page)."""
    start = 0
    if cursor:
        chain, _, seq = cursor.rpartition(":")
        after = (chain, int(seq) if seq.isdigit() else -1)
        start = bisect.bisect_right([(c, p) for c, p, *_ in found], after)
    end = min(start + limit, len(found))
    return start, end, f"{found[end - 1][0]}:{found[end - 1][1]}" if end < len(found) else None


def export_page(
    handle: Handle | None, cursor: str, limit: int
) -> tuple[dict[str, object], str | None]:
    """One page of the log as ``log.export`` gives it whole (entries, every chain's head)."""
    if handle is None:
        return {"chains": {}, "heads": {}, "total": 0}, None
    found = stored(handle.store)
    start, end, after = page_of(found, cursor, limit)
    chains: dict[str, list[dict[str, object]]] = {}
    for chain, position, node, record in found[start:end]:
        signed = log.signed_of(handle.store, node, record)
        if signed is not None:
            chains.setdefault(chain, []).append(log.exported(position, signed))
    heads = {c: h.model_dump(mode="json") for c, h in log.heads(handle.store).items()}
    return {"chains": chains, "heads": heads, "total": len(found)}, after


def before(store: QuadStore, found: list[Stored], first: int, chain: str) -> tuple[str, int]:
    """Where a chain's page starts: the hash and next position of its last readable entry
    before ``first`` (an unreadable one is skipped, as the whole check skips it)."""
    for i in range(first - 1, -1, -1):
        if found[i][0] != chain:
            break
        signed = log.signed_of(store, found[i][2], found[i][3])
        if signed is not None:
            return signed.entry.hash, found[i][1] + 1
    return ent.GENESIS, 0


def verify_page(
    handle: Handle | None, keys: Keyring, cursor: str, limit: int
) -> tuple[Verification, str | None, int]:
    """One page of the log checked; the next cursor and how many entries the log has."""
    if handle is None:
        return Verification(verified=True), None, 0
    store = handle.store
    found = stored(store)
    start, end, after = page_of(found, cursor, limit)
    order = [(c, p) for c, p, *_ in found]
    heads = log.heads(store)
    problems: list[checks.Problem] = []
    by_chain: dict[str, list[tuple[int, ent.Signed]]] = {}
    for chain, position, node, record in found[start:end]:
        signed = log.signed_of(store, node, record)
        if signed is None:
            why = f"the entry of {node} cannot be read: it was edited by hand"
            problems.append(checks.Problem("unreadable", why))
        else:
            by_chain.setdefault(chain, []).append((position, signed))
    for chain in dict.fromkeys(c for c, *_ in found[start:end]):
        items = by_chain.get(chain, [])
        first = bisect.bisect_left(order, (chain, -1), start, end)
        begins = before(store, found, first, chain)
        ends = bisect.bisect_right(order, (chain, LAST)) <= end  # its last entry is here
        if not items:  # only unreadable entries here (named): the chain's end, if it ends here
            if ends:
                problems += checks.head_problems(
                    keys, chain, begins[1] - 1, begins[0], heads.get(chain)
                )
            continue
        found_here = checks.chain_problems(keys, chain, items, heads.get(chain), begins, ends)
        if any(p.code == "signature" for p in found_here):  # made over an entry elsewhere?
            every = {s.hash: s for c in log.entries(store).values() for _, s in c}
            found_here = checks.chain_problems(
                keys, chain, items, heads.get(chain), begins, ends, every
            )
        problems += found_here
    page = [s for items in by_chain.values() for _, s in items]
    # A subject gone from the store is named on the page of its newest entry.
    newest = {
        subject: s
        for subject, s in ent.latest(
            e for x in {s.entry.subject for s in page} for _, e in log.of_subject(store, x)
        ).items()
        if any(s is p or s.hash == p.hash for p in page)
    }
    problems += gone(handle, newest)
    if after is None:  # the last page: chains with a checkpoint and no entry, unreadable rest
        problems += [
            p
            for chain in sorted(heads.keys() - {c for c, *_ in found})
            for p in checks.head_problems(keys, chain, -1, ent.GENESIS, heads[chain])
        ]
        problems += [checks.Problem("unreadable", why) for why in log.unreadable(store, False)]
    result = Verification(
        verified=not problems,
        problems=[as_problem(p) for p in problems],
        entries=len(page),
        chains=len({c for c, *_ in found} | heads.keys()),
        erased=sum(1 for s in page if s.tombstone is not None),
        erased_kinds=ent.erased_by_kind(newest.values()),  # each on its newest entry's page
        keys=sorted({s.entry.kid for s in page}),
    )
    return result, after, len(found)
