"""Whether a signed trace may be signed again: only if what changed since its signature
is what the write at hand brought (a late message, an erasure's marks). A trace edited by
hand is never signed over (laundered) by a later write to it: it keeps its old signature,
which names the edit (``seal.Seal.sign_all``)."""

from __future__ import annotations

import hashlib

import pyoxigraph as ox

from trustgraph_base.integrity import entries as ent
from trustgraph_base.integrity.canonical import fingerprint, parse_manifest
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance import log


def only_added(
    handle: Handle, node: ox.NamedNode, prior: ent.Signed, quads: list[ox.Quad], added: set[ox.Quad]
) -> bool:
    """Whether the trace's quads differ from the signed ones only by ``added``: each entity the
    write did not touch has its signed digest, each signed one it touched has it without the
    write's quads (or with them: a redelivery)."""
    text = log.manifest(handle.store, node)
    if text is None or sha256_text(text) != prior.entry.manifest:
        return False
    signed, now = parse_manifest(text), fingerprint(quads).subjects
    touched = {str(q.subject) for q in added}
    for subject in signed.keys() | now.keys():
        if subject not in touched:
            if signed.get(subject) != now.get(subject):
                return False
            continue
        if subject not in signed:
            continue  # new to it with this write (a page and its activity, say)
        before = fingerprint(q for q in quads if str(q.subject) == subject and q not in added)
        if signed[subject] not in (now.get(subject), before.subjects.get(subject)):
            return False
    return True


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
