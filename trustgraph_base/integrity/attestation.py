"""An audit bundle's seal and documents checked offline (``audit.verify_bundle`` calls these).

The seal (``seal.json``) is the store's log entry of kind ``bundle`` over the SHA-256 of
``manifest.json``: a trusted key's signature over exactly this manifest means no file was
removed, added or replaced since the export, even with the manifest rewritten to match.
Each document file is a document's extraction provenance, checked against the newest log
entry for the document in ``log.json`` like a trace; a document a trace used whose signed
provenance the log holds but the bundle leaves out is named.
"""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
from pydantic import ValidationError

from trustgraph_base.integrity import checks
from trustgraph_base.integrity import entries as ent
from trustgraph_base.integrity.bundle import BUNDLE_PREFIX, SEAL, sha256
from trustgraph_base.integrity.canonical import fingerprint
from trustgraph_base.integrity.keys import Keyring
from trustgraph_base.provenance.namespaces import GRAPH_SOURCE

_SOURCE = ox.NamedNode(GRAPH_SOURCE)


def check_seal(folder: Path, manifest: bytes, ring: Keyring) -> tuple[str, list[checks.Problem]]:
    """The manifest's seal: signed by a trusted key, as a bundle entry over this manifest.
    What it says when good (``chain#seq, key, time``), and the problems found."""
    try:
        signed = ent.Signed.model_validate_json((folder / SEAL).read_bytes())
    except OSError:
        why = f"{SEAL} is missing: the manifest is not signed, so a file removed from the bundle together with its manifest line would not show"
        return "", [checks.Problem("seal", why)]
    except ValidationError:
        return "", [checks.Problem("seal", f"{SEAL} is not a signed log entry")]
    e, digest = signed.entry, sha256(manifest)
    problems = checks.entry_problems(ring, signed)
    if e.kind != "bundle" or e.subject != BUNDLE_PREFIX + e.digest:
        problems.append(
            checks.Problem(
                "seal", f"{SEAL} is entry {e.chain}#{e.seq} of {e.subject}, not a bundle's seal"
            )
        )
    elif e.digest != digest:
        why = f"manifest.json is not the manifest signed in {SEAL} ({e.chain}#{e.seq}): the bundle was changed after its export"
        problems.append(checks.Problem("seal", why))
    return f"{e.chain}#{e.seq}, key {e.kid}, signed {e.time}", problems


def check_document(
    path: Path,
    name: str,
    doc: str,
    newest: dict[str, ent.Signed],
) -> list[checks.Problem]:
    """One document file against the digest of the document's newest log entry (kind
    ``document``; the entry itself is checked with its chain)."""
    try:
        quads = [
            q for q in ox.parse(path=str(path), format=ox.RdfFormat.TRIG) if q.graph_name == _SOURCE
        ]
    except (OSError, SyntaxError, ValueError) as exc:
        return [checks.Problem("unreadable", f"{name} is not TriG: {exc}", doc)]
    signed = newest.get(doc)
    if signed is None or signed.entry.kind != "document":
        return [
            checks.Problem("unsigned", f"{doc} (in {name}) has no document entry in the log", doc)
        ]
    fp, e = fingerprint(quads), signed.entry
    if fp.digest != e.digest:
        message = f"{doc} (in {name}): its extraction provenance is not the one signed in {e.chain}#{e.seq} ({e.count} quads signed, {fp.count} here)"
        return [checks.Problem("digest", message, doc)]
    return []


def left_out(
    used: set[str], included: set[str], newest: dict[str, ent.Signed]
) -> list[checks.Problem]:
    """Documents the traces used whose signed provenance the log holds but the bundle lacks."""
    return [
        checks.Problem(
            "missing",
            f"{doc} is used by the bundle's traces and signed in the log ({s.entry.chain}#{s.entry.seq}) but its provenance is not in the bundle",
            doc,
        )
        for doc in sorted(used - included)
        if (s := newest.get(doc)) is not None and s.entry.kind == "document" and s.tombstone is None
    ]
