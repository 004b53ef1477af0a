"""Signing a document's extraction provenance once its extraction is complete.

The librarian knows when a document is complete (decoded, every page chunked, every
chunk extracted) and then asks the store to ``seal-document``: the document's quads in
``urn:graph:source`` (the document, its pages, chunks and subgraphs with their
``tg:contains``, and the activities that made them) are signed as one log entry of kind
``document``, as a trace is when it ends. Provenance written after that (the store may
get the extractor's last triples after the librarian's request) signs it again, under
the same rule as a trace's late quads: only if nothing but that write changed it.
Removing the document gives its entries a tombstone (``erasure.remove_document``).
"""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.integrity.entries import Signed
from trustgraph_flow.store.core.backend import Handle, subject_groups
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.governance import deletion, log
from trustgraph_flow.store.governance.activities import activities, documents_of
from trustgraph_flow.store.governance.seal import Groups, Seal
from trustgraph_flow.store.views.lookup import SOURCE


def document_groups(handle: Handle, doc: str) -> Groups:
    """The document's extraction provenance: every quad of it and of what derives from it,
    and of the activities that made them, in ``urn:graph:source`` (one list per subject)."""
    entities = deletion.derived(handle.store, named(doc))
    subjects = activities(handle.store, entities) + entities
    return subject_groups(handle.store, subjects, SOURCE)


def seal_document(handle: Handle | None, seal: Seal | None, doc: str) -> Signed | None:
    """explain ``seal-document``: sign the document's provenance (None: unchanged since)."""
    if handle is None or not deletion.exists(handle.store, named(doc)):
        raise ServiceError(ErrorType.NOT_FOUND, f"no document {doc!r} in this collection")
    if seal is None:
        return None
    found = seal.sign_all(handle, [doc], "", quads_of=document_groups, kind="document")
    return next(iter(found), None)


def after_write(seal: Seal, handle: Handle, quads: Iterable[ox.Quad]) -> int:
    """Sign again the already signed documents whose provenance this batch added to."""
    quads = list(quads)
    docs = documents_of(handle.store, quads)
    sealed = sorted(d for d in docs if log.of_subject(handle.store, d))
    if not sealed:  # the common case (a document being extracted): one lookup per document
        return 0
    added = set(quads)
    reason = "extraction provenance written after it was signed"
    return len(
        seal.sign_all(handle, sealed, reason, added, quads_of=document_groups, kind="document")
    )
