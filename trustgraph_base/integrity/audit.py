"""Verifying an audit bundle (``bundle.py``) offline: no server, no broker, only this package.

What is checked, each problem named: the manifest's seal (signed by a trusted key over
this manifest: ``attestation.py``); every file the manifest lists is there with its size
and SHA-256 (a missing, truncated or changed file) and nothing else is (an extra file);
each public key is the key its name says; every chain of the log (signatures, positions,
links, gaps, its signed checkpoint, tombstones); each trace root in each trace file
against its newest log entry (signed by a trusted key, over this trace, and the digest
of the file's quads for that root equal to the signed one); each document file likewise,
and no signed document the traces used left out. Keys are the bundle's own unless
``trusted`` pins them (then a signature by any other key is named).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyoxigraph as ox
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from trustgraph_base.integrity import bundle, checks
from trustgraph_base.integrity import entries as ent
from trustgraph_base.integrity.attestation import check_document, check_seal, left_out
from trustgraph_base.integrity.bundle import FORMAT, KEYS, LOG, MANIFEST, SEAL, key_file, sha256
from trustgraph_base.integrity.canonical import fingerprint
from trustgraph_base.integrity.keys import KeyFileError, Keyring, key_id, read_public
from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, GRAPH_SOURCE
from trustgraph_base.provenance.uris import doc_of, trace_root


@dataclass
class Report:
    """What a bundle verification found; ``verified`` when nothing."""

    problems: list[checks.Problem] = field(default_factory=list)
    traces: int = 0  # trace files checked
    documents: int = 0  # document files checked
    sealed: str = ""  # the manifest's seal, when it could be read: "chain#seq, key …, signed …"
    roots: int = 0  # trace roots (with sub-traces) checked against the log
    entries: int = 0
    chains: int = 0
    erased: int = 0  # log entries with a tombstone
    erased_kinds: dict[str, int] = field(default_factory=dict)  # erased subjects by kind, once
    keys: list[str] = field(default_factory=list)
    pinned: bool = False  # keys given by the verifier, not only the bundle's own

    @property
    def verified(self) -> bool:
        return not self.problems


def verify_bundle(folder: Path, trusted: dict[str, Ed25519PublicKey] | None = None) -> Report:
    """Check the bundle in ``folder``; never raises for what is wrong with the bundle."""
    report = Report(pinned=trusted is not None)
    try:
        raw = (folder / MANIFEST).read_bytes()
        manifest = json.loads(raw)
        assert manifest.get("format") == FORMAT and isinstance(manifest.get("files"), dict)
    except (OSError, ValueError, AssertionError):
        report.problems.append(
            checks.Problem(
                "manifest", f"{folder / MANIFEST} is missing or not an {FORMAT} manifest"
            )
        )
        return report
    intact = check_files(folder, manifest["files"], report)
    keys = bundle_keys(folder, manifest["files"], intact, report)
    report.keys = sorted(keys)
    ring = Keyring(public=trusted if trusted is not None else keys)
    report.sealed, found = check_seal(folder, raw, ring)
    report.problems += found
    log = read_log(folder, report) if LOG in intact or LOG in manifest["files"] else None
    if log is None:
        return report
    chains, heads = log
    every = [s for stored in chains.values() for _, s in stored]
    newest, by_hash = ent.latest(every), {s.entry.hash: s for s in every}
    # Each entry is checked here once (its signature, and whether it was made over another
    # entry of any chain); a trace or document file is then checked against its entry's
    # digest only, so each problem is named once.
    for chain in sorted(chains.keys() | heads.keys()):
        report.problems += checks.chain_problems(
            ring, chain, chains.get(chain, []), heads.get(chain), others=by_hash
        )
    report.entries, report.chains = len(every), len(chains)
    report.erased = sum(1 for s in every if s.tombstone is not None)
    report.erased_kinds = ent.erased_by_kind(newest.values())
    used: set[str] = set()
    for name, trace in sorted(manifest.get("traces", {}).items()):
        if (folder / name).is_file():
            used |= check_trace(folder / name, name, trace, newest, report)
    documents = manifest.get("documents", {})
    for name, doc in sorted(documents.items()):
        if (folder / name).is_file():
            report.documents += 1
            report.problems += check_document(folder / name, name, doc, newest)
    report.problems += left_out(used, set(documents.values()), newest)
    return report


def check_files(folder: Path, files: dict[str, Any], report: Report) -> set[str]:
    """Each listed file present, whole and unchanged; nothing unlisted. The intact ones."""
    intact: set[str] = set()
    for name, want in sorted(files.items()):
        path = folder / name
        if not path.is_file():
            report.problems.append(
                checks.Problem("missing", f"{name} is listed in the manifest but missing")
            )
            continue
        data = path.read_bytes()
        if sha256(data) == want.get("sha256"):
            intact.add(name)
        elif len(data) < int(want.get("bytes", 0)) and not bundle.whole_json(name, data):
            cut = "" if name.endswith(".json") else " (or edited shorter)"  # TriG cannot tell
            size = f"{len(data)} of {want.get('bytes')} bytes"
            report.problems.append(checks.Problem("truncated", f"{name} is truncated{cut}: {size}"))
        elif len(data) < int(want.get("bytes", 0)):
            report.problems.append(
                checks.Problem(
                    "changed",
                    f"{name} does not match the manifest: {len(data)} of {want.get('bytes')} "
                    "bytes and another SHA-256, yet whole JSON: rewritten shorter (parts removed), not cut off",
                )
            )
        else:
            report.problems.append(
                checks.Problem(
                    "changed", f"{name} is not the file the manifest lists (its SHA-256 differs)"
                )
            )
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = path.relative_to(folder).as_posix()
        if name not in (MANIFEST, SEAL) and name not in files:
            report.problems.append(
                checks.Problem(
                    "extra", f"{name} is not listed in the manifest: added to the bundle"
                )
            )
    return intact


def bundle_keys(
    folder: Path, files: dict[str, Any], intact: set[str], report: Report
) -> dict[str, Ed25519PublicKey]:
    """The bundle's public keys by id, each checked to be the key its file name says."""
    out: dict[str, Ed25519PublicKey] = {}
    for name in sorted(n for n in files if n.startswith(KEYS + "/") and (folder / n).is_file()):
        try:
            key = read_public((folder / name).read_text(), name)
        except KeyFileError as exc:
            report.problems.append(checks.Problem("key", str(exc)))
            continue
        kid = key_id(key)
        if key_file(kid) != name:
            report.problems.append(
                checks.Problem("key", f"{name} holds key {kid}, not the one its name says")
            )
            continue
        out[kid] = key
    return out


Chains = dict[str, list[tuple[int, ent.Signed]]]


def read_log(folder: Path, report: Report) -> tuple[Chains, dict[str, ent.Checkpoint]] | None:
    """``log.json`` read back; None (a problem named) when it cannot be."""
    try:
        data = json.loads((folder / LOG).read_text())
        chains: Chains = defaultdict(list)
        for chain, stored in data["chains"].items():
            for item in stored:
                signed = ent.Signed.model_validate(
                    {**item["record"], "tombstone": item.get("tombstone")}
                )
                chains[chain].append((int(item["position"]), signed))
        heads = {c: ent.Checkpoint.model_validate(h) for c, h in data["heads"].items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        report.problems.append(checks.Problem("log", f"{LOG} cannot be read: {exc}"))
        return None
    return dict(chains), heads


def check_trace(
    path: Path,
    name: str,
    trace: str,
    newest: dict[str, ent.Signed],
    report: Report,
) -> set[str]:
    """Each trace root in one trace file against its newest log entry's digest (the entry
    itself is checked with its chain); the documents whose source chain the file carries."""
    report.traces += 1
    docs: set[str] = set()
    try:
        quads = ox.parse(path=str(path), format=ox.RdfFormat.TRIG)
        roots: dict[str, list[ox.Quad]] = defaultdict(list)
        for q in quads:
            if type(q.subject) is not ox.NamedNode:
                continue
            if q.graph_name == _RETRIEVAL and (root := trace_root(q.subject.value)) is not None:
                roots[root].append(q)
            elif q.graph_name == _SOURCE and (doc := doc_of(q.subject.value)) is not None:
                docs.add(doc)
    except (OSError, SyntaxError, ValueError) as exc:
        report.problems.append(checks.Problem("unreadable", f"{name} is not TriG: {exc}", trace))
        return docs
    if trace not in roots:
        report.problems.append(
            checks.Problem("missing", f"{name} should hold trace {trace} but does not", trace)
        )
    for root, own in sorted(roots.items()):
        report.roots += 1
        signed = newest.get(root)
        if signed is None:
            report.problems.append(
                checks.Problem("unsigned", f"{root} (in {name}) has no entry in the log", root)
            )
            continue
        fp = fingerprint(own)
        if fp.digest != signed.entry.digest:
            e = signed.entry
            message = f"{root} (in {name}): its quads are not the ones signed in {e.chain}#{e.seq} ({e.count} signed, {fp.count} here)"
            report.problems.append(checks.Problem("digest", message, root))
    return docs


_RETRIEVAL, _SOURCE = ox.NamedNode(GRAPH_RETRIEVAL), ox.NamedNode(GRAPH_SOURCE)
