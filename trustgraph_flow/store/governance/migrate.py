"""Existing stores brought to the reference's forms our builders adopted (docs/conformance.md),
at the store's start, collection by collection, on every backend.

Each step (``migrate_steps.py``) adds the facts an old store lacks. Provenance already signed
(a document's, docs/audit.md, or an ended trace's) is signed again over the migrated form,
under the rule every late write to signed provenance follows (``Seal.sign_all`` with the quads
added): only if nothing but the migration changed it since it was signed, so a migration never
launders an edit. The facts and a pending mark per signed owner go in one atomic write (graph
``urn:tg:migration``); the mark is removed once the owner is signed again, so a migration
killed between the two signs at the next start. Idempotent: a migrated collection has nothing
left to add (a few pattern reads per step).
"""

from __future__ import annotations

import logging

import pyoxigraph as ox

from trustgraph_flow.store.core.backend import Backend, Handle, remove_quads
from trustgraph_flow.store.governance import log
from trustgraph_flow.store.governance.migrate_steps import STEPS, Step
from trustgraph_flow.store.governance.seal import Seal

logger = logging.getLogger(__name__)
GRAPH = ox.NamedNode("urn:tg:migration")
PENDING = ox.NamedNode("urn:tg:migration:pending")


def migrate(stores: Backend, seal: Seal | None) -> int:
    """Migrate every collection; how many entities were given adopted facts."""
    done = 0
    for user, collection in stores.scopes():
        with stores.lease(user, collection) as handle:
            if handle is not None:
                done += sum(migrate_step(handle, seal, step) for step in STEPS)
    if done:
        logger.warning("migrated %d entities to the reference's forms (docs/conformance.md)", done)
    return done


def _signed(handle: Handle, step: Step, owner: str) -> bool:
    """Whether ``owner`` has a signature the migration must renew: a signed document, or a
    trace that has ended and been signed (a running one is signed when it ends)."""
    if not log.of_subject(handle.store, owner):
        return False
    if step.kind == "trace":
        row = handle.index.rows([owner]).get(owner)
        return row is not None and row.status != "in-progress"
    return True


def migrate_step(handle: Handle, seal: Seal | None, step: Step) -> int:
    """Add ``step``'s facts where they are missing, then sign again the signed owners they
    belong to (and any a killed migration left pending); how many entities got facts."""
    added = step.missing(handle)
    owners = sorted({o for q in added if (o := step.owner(_iri(q.subject)))})
    mark = ox.Literal(step.name)
    signed = [o for o in owners if seal is not None and _signed(handle, step, o)]
    if added:  # one atomic write: the facts and their marks
        handle.store.extend(
            [*added, *(ox.Quad(ox.NamedNode(o), PENDING, mark, GRAPH) for o in signed)]
        )
    if seal is None:
        return len({q.subject for q in added})
    pending = list(handle.store.quads_for_pattern(None, PENDING, mark, GRAPH))
    for quad in pending:
        owner = _iri(quad.subject)
        facts = set(step.present(handle, owner))
        seal.sign_all(handle, [owner], step.reason, facts, quads_of=step.quads_of, kind=step.kind)
    if pending:
        remove_quads(handle.store, pending)
    return len({q.subject for q in added})


def _iri(node: object) -> str:
    return node.value if isinstance(node, ox.NamedNode) else ""
