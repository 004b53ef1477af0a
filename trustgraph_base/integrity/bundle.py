"""An audit bundle: traces and documents as TriG, the log, the public keys and a manifest
signed by the deployment, in a folder.

    manifest.json        what the bundle holds: its scope and window, and per file its
                         SHA-256 and size (``files``), the traces (``traces``) and the
                         documents (``documents``) it exports
    seal.json            the manifest's signature: the store's log entry (kind ``bundle``,
                         subject ``urn:tg:audit:<SHA-256 of manifest.json>``) made at export
    traces/NNNNN.trig    one top-level trace each (its sub-traces, the erasures that marked
                         it, and the source chain it used: tg-export-explain-trace's TriG)
    documents/NNNNN.trig the signed extraction provenance of each document those traces used
    log.json             the collection's log: every chain's entries as stored (position,
                         entry, signature, tombstone) and its signed checkpoint
    keys/<id>.pem        the public keys the log's signatures name

``verify.py`` beside this checks one offline: no server, no broker.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = "explaingraph-audit/2"
MANIFEST, SEAL, LOG, TRACES, DOCUMENTS, KEYS = (
    "manifest.json",
    "seal.json",
    "log.json",
    "traces",
    "documents",
    "keys",
)
BUNDLE_PREFIX = "urn:tg:audit:"  # + the manifest's SHA-256: the subject of its log entry


@dataclass
class Contents:
    """What goes into a bundle (``write``)."""

    user: str
    collection: str
    since: str | None
    until: str | None
    made_at: str
    traces: dict[str, str] = field(default_factory=dict)  # top-level trace id → its TriG
    log: dict[str, Any] = field(default_factory=dict)  # ``log.json``: chains, heads, keys
    keys: dict[str, str] = field(default_factory=dict)  # key id → PEM
    documents: dict[str, str] = field(default_factory=dict)  # document IRI → its TriG


def key_file(kid: str) -> str:
    return f"{KEYS}/{kid.replace(':', '-')}.pem"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def build(contents: Contents) -> dict[str, bytes]:
    """Every file of the bundle by name, ``manifest.json`` included (``seal.json`` apart:
    the store signs the manifest's SHA-256, ``manifest_digest``)."""
    files: dict[str, bytes] = {}
    listed: dict[str, dict[str, str]] = {TRACES: {}, DOCUMENTS: {}}
    for folder, items in ((TRACES, contents.traces), (DOCUMENTS, contents.documents)):
        for n, uri in enumerate(sorted(items)):
            name = f"{folder}/{n:05d}.trig"
            files[name] = items[uri].encode()
            listed[folder][name] = uri
    files[LOG] = json.dumps(contents.log, sort_keys=True, indent=1).encode()
    for kid, pem in sorted(contents.keys.items()):
        files[key_file(kid)] = pem.encode()
    manifest = {
        "format": FORMAT,
        "user": contents.user,
        "collection": contents.collection,
        "since": contents.since,
        "until": contents.until,
        "made_at": contents.made_at,
        "traces": listed[TRACES],
        "documents": listed[DOCUMENTS],
        "files": {
            name: {"sha256": sha256(data), "bytes": len(data)}
            for name, data in sorted(files.items())
        },
    }
    files[MANIFEST] = json.dumps(manifest, sort_keys=True, indent=1).encode()
    return files


def manifest_digest(files: dict[str, bytes]) -> str:
    """What the store signs for a bundle: the SHA-256 of its ``manifest.json``."""
    return sha256(files[MANIFEST])


def write(folder: Path, files: dict[str, bytes], seal: str) -> None:
    """Write the built bundle and its ``seal`` (the signed entry's JSON) into ``folder``
    (created; refused if it holds anything)."""
    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.iterdir()):
        raise FileExistsError(f"{folder} is not empty: name a new folder for the bundle")
    for name, data in {**files, SEAL: seal.encode()}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


def whole_json(name: str, data: bytes) -> bool:
    """A ``.json`` file that parses whole (one cut short never does: its brackets are open)."""
    if not name.endswith(".json"):
        return False
    try:
        json.loads(data)
    except ValueError:
        return False
    return True
