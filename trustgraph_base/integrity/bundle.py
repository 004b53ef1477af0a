"""An audit bundle: traces as TriG, the log, the public keys and a manifest, in a folder.

    manifest.json        what the bundle holds: its scope and window, and per file its
                         SHA-256 and size (``files``), the traces it exports (``traces``)
    traces/NNNNN.trig    one top-level trace each (its sub-traces, the erasures that marked
                         it, and the source chain it used: tg-export-explain-trace's TriG)
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

FORMAT = "explaingraph-audit/1"
MANIFEST, LOG, TRACES, KEYS = "manifest.json", "log.json", "traces", "keys"


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


def key_file(kid: str) -> str:
    return f"{KEYS}/{kid.replace(':', '-')}.pem"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write(folder: Path, contents: Contents) -> dict[str, Any]:
    """Write the bundle into ``folder`` (created; refused if it holds anything); its manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.iterdir()):
        raise FileExistsError(f"{folder} is not empty: name a new folder for the bundle")
    (folder / TRACES).mkdir()
    (folder / KEYS).mkdir()
    files: dict[str, bytes] = {}
    ids = sorted(contents.traces)
    for n, trace in enumerate(ids):
        files[f"{TRACES}/{n:05d}.trig"] = contents.traces[trace].encode()
    files[LOG] = json.dumps(contents.log, sort_keys=True, indent=1).encode()
    for kid, pem in sorted(contents.keys.items()):
        files[key_file(kid)] = pem.encode()
    for name, data in files.items():
        (folder / name).write_bytes(data)
    manifest = {
        "format": FORMAT,
        "user": contents.user,
        "collection": contents.collection,
        "since": contents.since,
        "until": contents.until,
        "made_at": contents.made_at,
        "traces": {f"{TRACES}/{n:05d}.trig": trace for n, trace in enumerate(ids)},
        "files": {
            name: {"sha256": sha256(data), "bytes": len(data)}
            for name, data in sorted(files.items())
        },
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, sort_keys=True, indent=1))
    return manifest
