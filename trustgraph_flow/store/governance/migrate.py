"""Existing stores brought to the reference's forms our builders adopted (docs/conformance.md),
at the store's start, collection by collection, on every backend.

Each step (``migrate_steps.py``) adds the facts an old store lacks (and removes those they
replace). Provenance already signed (a document's, docs/audit.md, or an ended trace's) is
signed again over the migrated form, never over an edit: an added fact under the rule every
late write to signed provenance follows (``Seal.sign_all`` with the quads added: only if
nothing but the migration changed it), a replaced one only if the old form still matched its
signature when the migration began (a new log entry whose reason names the migration). The
facts and a pending mark per signed owner go in one atomic write (graph ``urn:tg:migration``,
the store's own, beside SPEC's graphs); what they replace is removed after; the mark is
removed once the owner is signed again, so a migration killed anywhere between finishes at
the next start. Idempotent.

Once a step has finished in a collection (nothing pending left), a *done* mark
``<urn:tg:migration:done> <urn:tg:migration:step> "{step}"`` in that graph says so, and the
step is not run there again: a migrated collection costs one read at each start, however
many traces it holds (the steps' checks cost ~55 µs a trace each start before). What the
builders write now is already in the adopted forms. Old-form triples written into a migrated
collection later (a processor of an older version still publishing) are migrated only when
asked: ``migrate(..., again=True)`` (the store's ``--migrate-again``) runs every step anew.
"""

from __future__ import annotations

import logging

import pyoxigraph as ox

from trustgraph_base.integrity import entries as ent
from trustgraph_base.integrity.canonical import fingerprint_groups
from trustgraph_flow.store.core.backend import Backend, Handle, remove_quads
from trustgraph_flow.store.governance import log
from trustgraph_flow.store.governance.migrate_steps import STEPS, Step
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.views.lookup import RETRIEVAL

logger = logging.getLogger(__name__)
GRAPH = ox.NamedNode("urn:tg:migration")
PENDING = ox.NamedNode("urn:tg:migration:pending")
DONE, STEP = ox.NamedNode("urn:tg:migration:done"), ox.NamedNode("urn:tg:migration:step")


def migrate(
    stores: Backend,
    seal: Seal | None,
    *,
    again: bool = False,
    scopes: list[tuple[str, str]] | None = None,
) -> int:
    """Migrate every collection (or those of ``scopes``; the steps not marked done in it, or all
    with ``again``); how many entities were given adopted facts. A shard that does not answer
    is left, logged: its collections are migrated when it answers (``lifespan.migrate_late``)."""
    if scopes is None:
        scopes, down = stores.reached()
        for line in down:
            logger.warning("%s: its collections are migrated once it answers", line)
    done = 0
    for user, collection in scopes:
        with stores.lease(user, collection) as handle:
            if handle is not None:
                done += migrate_collection(handle, seal, again=again)
    if done:
        logger.warning("migrated %d entities to the reference's forms (docs/conformance.md)", done)
    return done


def migrate_collection(handle: Handle, seal: Seal | None, *, again: bool = False) -> int:
    """Run in one collection each step not marked done there, marking it done after."""
    finished = set() if again else steps_done(handle)
    done = 0
    for step in STEPS:
        if step.name in finished:
            continue
        done += migrate_step(handle, seal, step)
        mark = ox.Literal(step.name)
        if next(handle.store.quads_for_pattern(None, PENDING, mark, GRAPH), None) is None:
            handle.store.extend([ox.Quad(DONE, STEP, mark, GRAPH)])  # none left to sign again
    return done


def steps_done(handle: Handle) -> set[str]:
    """The steps marked done in the collection (one read)."""
    marks = handle.store.quads_for_pattern(DONE, STEP, None, GRAPH)
    return {q.object.value for q in marks if isinstance(q.object, ox.Literal)}


def _signed(handle: Handle, step: Step, owner: str) -> bool:
    """Whether ``owner`` has a signature the migration must renew: a signed document, or a
    trace that has ended and been signed (a running one is signed when it ends). A step that
    replaces facts renews only a signature its owner still matches (an edit keeps its old
    signature, which names the edit)."""
    stored = log.of_subject(handle.store, owner)
    if not stored:
        return False
    if step.kind == "trace":
        row = handle.index.rows([owner]).get(owner)
        if row is None or row.status == "in-progress":
            return False
    if not step.replaces:
        return True
    newest = ent.latest(s for _, s in stored).get(owner)
    fp = fingerprint_groups(step.quads_of(handle, owner))
    return newest is not None and newest.tombstone is None and newest.entry.digest == fp.digest


def migrate_step(handle: Handle, seal: Seal | None, step: Step) -> int:
    """Add ``step``'s facts where they are missing and remove what they replace, then sign
    again the signed owners they belong to (and any a killed migration left pending); how
    many entities got facts."""
    added = step.missing(handle)
    owners = step.owners(handle, added)
    if step.replaces is not None and seal is not None:
        # Old facts whose new form is in already (written, and signed, after a migration):
        # removed below, so their owners are signed again too.
        owners |= step.owners(handle, step.replaces(handle))
    mark = ox.Literal(step.name)
    signed = [o for o in sorted(owners) if seal is not None and _signed(handle, step, o)]
    if added and step.indexed:  # the index first: a kill before the store's write redoes it
        handle.index.record(added)
    if added or signed:  # one atomic write: the facts and their marks
        marks = [ox.Quad(ox.NamedNode(o), PENDING, mark, GRAPH) for o in signed]
        handle.store.extend([*added, *marks])
    if step.replaces:
        old = step.replaces(handle)
        if old and step.indexed:
            handle.index.unrecord(old)
        if old and step.forgets:  # before the removal: a kill between redoes both
            handle.index.forget_entities(_wholly(handle, old))
        remove_quads(handle.store, old)
    if seal is None:
        return len({q.subject for q in added})
    if seal.written is not None and (added or step.replaces):
        # Changed past the writer: what it wrote of a trace is no longer all there is.
        seal.written.forget(handle.key)
    pending = list(handle.store.quads_for_pattern(None, PENDING, mark, GRAPH))
    for quad in pending:
        _sign_again(handle, seal, step, _iri(quad.subject))
    if pending:
        remove_quads(handle.store, pending)
    return len({q.subject for q in added})


def _sign_again(handle: Handle, seal: Seal, step: Step, owner: str) -> None:
    """Sign ``owner`` over its migrated form: an added fact under the late-write rule; a
    replaced one as a new entry naming the migration (its old form was checked against its
    signature before it was changed)."""
    if not step.replaces:
        facts = set(step.present(handle, owner))
        seal.sign_all(handle, [owner], step.reason, facts, quads_of=step.quads_of, kind=step.kind)
        return
    fp = fingerprint_groups(step.quads_of(handle, owner))
    newest = ent.latest(s for _, s in log.of_subject(handle.store, owner)).get(owner)
    if newest is None or newest.entry.digest != fp.digest:
        seal.append(handle, [(owner, fp)], step.reason, step.kind)


def _wholly(handle: Handle, old: list[ox.Quad]) -> list[str]:
    """The entities every retrieval-graph quad of which is in ``old`` (renamed away)."""
    removed = set(old)
    subjects = {q.subject for q in old if isinstance(q.subject, ox.NamedNode)}
    return [
        s.value
        for s in subjects
        if all(q in removed for q in handle.store.quads_for_pattern(s, None, None, RETRIEVAL))
    ]


def _iri(node: object) -> str:
    return node.value if isinstance(node, ox.NamedNode) else ""
