"""Whether a signed trace may be signed again: only if what changed since its signature
is quads the write at hand brought (a late message, an erasure's marks, a run's messages
sent again by its restarted process with the mark that it was interrupted). A trace edited
by hand is never signed over (laundered) by a later write to it: it keeps its old
signature, which names the edit (``seal.Seal.sign_all``).

The write may hold quads the trace already had when it was signed beside new ones, on
the same entity: a restarted process sends its run's messages again (the store keeps a
quad once) and its rerun or the interrupted mark adds to them, all in one batch. The
store does not say which of a batch's quads were new, and the signature keeps only each
entity's digest. So for an entity the write touched whose digest is neither the signed
one nor the signed one without the whole write, the signed digest is looked for among
the entity's present lines less some of the write's lines: as many as the present count
exceeds the signed one by (the entry's ``count``) when one entity is in doubt, fewest
first otherwise, hashing at most ``LINES`` lines a trace (~30 ms of CPU; past that it is
not signed again, logged). SHA-256 makes a match mean the signed lines are exactly what is there less
some of this write's: nothing signed was changed or removed, and nothing but the writer's
own quads was added. Each batch is judged against the newest signature, so a restart's
writes across batches (or across a store restart: a batch not acknowledged comes again)
are signed again one by one. A write that only adds entities is judged without a read
(``only_new``) from the writer's record of the trace (``written.py``): what it wrote, so a
one-for-one hand edit elsewhere is not in the new signature either, which names it.
"""

from __future__ import annotations

import hashlib
import logging
from collections import defaultdict
from collections.abc import Callable
from itertools import combinations

import pyoxigraph as ox

from trustgraph_base.integrity import entries as ent
from trustgraph_base.integrity.canonical import Fingerprint, canonical_lines, parse_manifest
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance import log

log_ = logging.getLogger(__name__)
LINES = 1 << 18  # lines hashed per trace at most in the search, all entities together (~30 ms)


def only_added(
    handle: Handle, node: ox.NamedNode, prior: ent.Signed, quads: list[ox.Quad], added: set[ox.Quad]
) -> bool:
    """Whether the trace's quads are the signed ones plus some of ``added``: each entity the
    write did not touch has its signed digest, each signed one it touched has it without
    some of the write's quads (none: a redelivery; all: a late message; some: a message
    sent again beside a new one)."""
    text = log.manifest(handle.store, node)
    if text is None or sha256_text(text) != prior.entry.manifest:
        return False
    lines = _by_subject(canonical_lines(quads))
    signed = parse_manifest(text)
    touched = {str(q.subject) for q in added}
    doubt, extra = [], 0  # entities to search; lines of entities new to the trace
    for subject in signed.keys() | lines.keys():
        now = lines.get(subject)
        if now is not None and signed.get(subject) == _digest(now):
            continue
        if subject not in touched or now is None:
            return False  # changed, or removed, by something else than this write
        if subject not in signed:
            extra += len(now)  # new to it with this write (a page and its activity, say)
        else:
            doubt.append(subject)
    if not doubt:
        return True
    if any(b"_:" in line for s in doubt for line in lines[s]):
        return False  # blank nodes: a part's labels are not the whole's (none in a trace)
    fresh = sum(len(v) for v in lines.values()) - prior.entry.count - extra
    writes = _by_subject(_as_stored([q for q in added if str(q.subject) in doubt]))
    budget = [LINES]
    for subject in doubt:
        now = lines[subject]
        present = set(now)
        wrote = [w for w in writes.get(subject, []) if w in present]
        # All of the write's lines first (a late message), then the fewest.
        sizes = [fresh] if len(doubt) == 1 else [len(wrote), *range(1, len(wrote))]
        gone = _found(signed[subject], now, wrote, [k for k in sizes if 0 < k <= fresh], budget)
        if gone is None:
            if budget[0] <= 0:
                log_.warning("trace %s: too many ways this write could have changed it", node)
            return False
        fresh -= gone
    return True


def signed_again(
    handle: Handle,
    node: ox.NamedNode,
    prior: ent.Signed,
    now: Fingerprint,
    groups: list[list[ox.Quad]] | None,
    read: Callable[[], list[list[ox.Quad]]],
    added: set[ox.Quad],
) -> bool:
    """Whether a signed trace whose fingerprint is now ``now`` may be signed again: from
    the writer's record when ``groups`` is None (``only_new``, nothing read back), else, or
    when that cannot tell, from its stored quads (``groups``, or ``read`` gives them)."""
    if groups is None and only_new(handle, node, prior, now, added):
        return True
    if only_added(handle, node, prior, [q for g in groups or read() for q in g], added):
        return True
    log_.warning(
        "trace %s differs from its signature by more than this write: not signed again "
        "(tg-verify-explain-trace names what changed)",
        prior.entry.subject,
    )
    return False


def only_new(
    handle: Handle, node: ox.NamedNode, prior: ent.Signed, now: Fingerprint, added: set[ox.Quad]
) -> bool:
    """``only_added``'s answer when it needs no search, from the present fingerprint alone
    (the writer's record, ``written.py``: no read back): every signed entity has its signed
    digest and each other is one this write touched (a late message: a GraphRAG answer's
    verification after its synthesis). False when an entity the signature holds changed:
    ``only_added`` then decides from the stored quads."""
    text = log.manifest(handle.store, node)
    if text is None or sha256_text(text) != prior.entry.manifest:
        return False
    signed = parse_manifest(text)
    if any(now.subjects.get(s) != d for s, d in signed.items()):
        return False
    # Each new entity one of the write's subjects (a batch is mostly other traces': no
    # quad's text is made)
    new = {ox.NamedNode(s[1:-1]) for s in now.subjects.keys() - signed.keys()}
    for q in added:
        new.discard(q.subject)
        if not new:
            return True
    return not new


def _found(
    want: str, now: list[bytes], wrote: list[bytes], sizes: list[int], budget: list[int]
) -> int | None:
    """How many of ``wrote``'s lines (a number in ``sizes``) ``now`` less them has digest
    ``want`` with; None if no such lines (or the budget ran out)."""
    for k in sizes:
        if k > len(wrote):
            continue
        for gone in combinations(wrote, k):
            budget[0] -= len(now)
            if budget[0] < 0:
                return None
            drop = set(gone)
            if _digest([line for line in now if line not in drop]) == want:
                return k
    return None


def _by_subject(lines: list[bytes]) -> dict[str, list[bytes]]:
    """Sorted canonical lines by their subject as the manifest writes it (``<iri>``)."""
    out: dict[str, list[bytes]] = defaultdict(list)
    for line in lines:
        out[line.split(b" ", 1)[0].decode()].append(line)
    return out


def _as_stored(quads: list[ox.Quad]) -> list[bytes]:
    """The canonical lines of quads as a store keeps them (typed literals in their normal
    form, ``"1.50"^^xsd:decimal`` as ``"1.5"``: ``written.py``)."""
    memory = ox.Store()
    memory.extend(quads)
    return canonical_lines(memory)


def _digest(lines: list[bytes]) -> str:
    return hashlib.sha256(b"".join(lines)).hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
