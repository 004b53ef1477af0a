"""What an audit export asks of the store beyond the traces (docs/audit.md): a document's
signed extraction provenance as TriG (explain ``export-document``), and the bundle's
manifest signed (explain ``seal-bundle``).

A bundle's manifest is signed as a log entry of its own, of kind ``bundle``: its subject
is ``urn:tg:audit:<the manifest's SHA-256>``, its digest that SHA-256, its reason what was
exported. So the deployment's log records every export, and a bundle whose files were
removed, added or replaced together with its manifest no longer matches its seal. The
store signs only a digest under that kind and subject: the signature cannot stand for a
trace's, a document's or a checkpoint's.
"""

from __future__ import annotations

import hashlib
import string

import pyoxigraph as ox
from pydantic_core import to_json

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.integrity.bundle import BUNDLE_PREFIX
from trustgraph_base.integrity.canonical import Fingerprint
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.governance import deletion
from trustgraph_flow.store.governance.documents import document_groups
from trustgraph_flow.store.governance.seal import Seal

_NOT_SIGNING = "this store does not sign traces (its setting signing is off)"


def seal_bundle(handle: Handle | None, seal: Seal | None, digest: str, reason: str) -> str:
    """explain ``seal-bundle``: the manifest's SHA-256 signed as a log entry (its JSON)."""
    if seal is None:
        raise ServiceError(ErrorType.BAD_REQUEST, _NOT_SIGNING)
    if len(digest) != 64 or any(c not in string.hexdigits.lower() for c in digest):
        raise ServiceError(
            ErrorType.BAD_REQUEST, "seal-bundle needs id: the manifest's SHA-256 (64 hex digits)"
        )
    if handle is None:
        raise ServiceError(ErrorType.NOT_FOUND, "no such collection: nothing to export")
    found = Fingerprint(digest=digest, count=0, subjects={})
    (signed,) = seal.append(handle, [(BUNDLE_PREFIX + digest, found)], reason, "bundle")
    return signed.model_dump_json(exclude={"tombstone"})


# TriG a page of a paged export-document, in the bytes its reply carries (UTF-8, escaped in
# JSON: a CJK character is 3, a quote 2): a reply carries at most 4 MB (a 3 MB text's 3,809
# chunks make 6.7 MB of provenance, refused whole).
EXPORT_PAGE_BYTES = 2 * 1024 * 1024


def export_document(handle: Handle | None, doc: str, cursor: str | None = None) -> tuple[str, str]:
    """explain ``export-document``: the document's extraction provenance (what its log
    entry signs: ``document_groups``) as TriG, and the cursor of the rest ("" when none).

    With no ``cursor``, all of it at once. With one ("" for the first page), the subjects'
    groups in the order of their IRIs' SHA-256 after ``cursor``, up to ``EXPORT_PAGE_BYTES``
    of TriG as its reply carries it (at least one group): the pages joined are the whole TriG's quads, and a page
    starts after the last subject sent, wherever the groups lie."""
    if handle is None or not deletion.exists(handle.store, named(doc)):
        raise ServiceError(ErrorType.NOT_FOUND, f"no document {doc!r} in this collection")
    groups = [g for g in document_groups(handle, doc) if g]
    if cursor is None:
        return trig([q for group in groups for q in group]), ""
    keyed = sorted((_key(g[0].subject), g) for g in groups)
    parts: list[str] = []
    size, after = 0, ""
    for key, group in keyed:
        if key <= cursor:
            continue
        text = trig(group)
        weight = len(to_json(text))  # as the reply carries it, not in characters
        if parts and size + weight > EXPORT_PAGE_BYTES:
            return "".join(parts), after
        parts.append(text)
        size, after = size + weight, key
    return "".join(parts), ""


def trig(quads: list[ox.Quad]) -> str:
    return (ox.serialize(quads, format=ox.RdfFormat.TRIG) or b"").decode()


def _key(subject: object) -> str:
    """A page's place: the subject's SHA-256 (fixed-length, whatever the IRI's length)."""
    return hashlib.sha256(str(subject).encode()).hexdigest()
