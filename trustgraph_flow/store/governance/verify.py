"""Checking signed traces against the store, and the whole log (explain ``verify-trace`` /
``verify-log``; docs/audit.md).

A trace verifies when, for it and each sub-trace: its newest log entry's signature is
the deployment's (a trusted key), the entry is where its chain says (stored at its own
position, and the next entry or the chain's checkpoint links to it), and the digest of
the quads stored now equals the signed one. Where the digest differs, the signed
manifest (per-entity digests) names each entity that was changed, added or removed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.integrity import entries as ent
from trustgraph_base.integrity.canonical import changes, fingerprint_groups, parse_manifest
from trustgraph_base.integrity.checks import entry_problems
from trustgraph_base.integrity.keys import Keyring, public_pem
from trustgraph_base.provenance.uris import DOC_PREFIX
from trustgraph_base.schema.integrity import IntegrityProblem, SealCheck, Verification
from trustgraph_flow.store.core.backend import Handle, batched, subject_groups
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.core.rows import TraceRow
from trustgraph_flow.store.governance import deletion, log
from trustgraph_flow.store.governance.documents import document_groups
from trustgraph_flow.store.governance.entry_check import EntryReader, Found, entry_check
from trustgraph_flow.store.governance.log_check import as_problem, verify_log
from trustgraph_flow.store.governance.seal import Groups, Seal, trace_groups
from trustgraph_flow.store.governance.text_read import text_digests
from trustgraph_flow.store.views.export import roots_of
from trustgraph_flow.store.views.lookup import RETRIEVAL
from trustgraph_flow.store.views.traces import candidates

READERS = 2  # threads reading a trace's text, beside the entry checks (``text_digests``)


def answer(handle: Handle | None, operation: str, trace_id: str, seal: Seal | None) -> Verification:
    """explain ``verify-trace`` (``trace_id``) or ``verify-log``, with the store's trusted keys."""
    if seal is None:
        raise ServiceError(
            ErrorType.BAD_REQUEST, "this store does not sign traces (its setting signing is off)"
        )
    if handle is not None:
        seal.settle(handle)  # no ended trace reads as unsigned for waiting in the backlog
    if operation == "verify-log":
        return verify_log(handle, seal.keys)
    if not trace_id:
        raise ServiceError(ErrorType.BAD_REQUEST, "verify-trace needs an id")
    if trace_id.startswith(DOC_PREFIX):
        return verify_document(handle, seal.keys, trace_id)
    return verify_trace(handle, seal.keys, trace_id)


def verify_document(handle: Handle | None, keys: Keyring, doc: str) -> Verification:
    """A document's signed extraction provenance; a removed one by its tombstone."""
    if handle is None or not deletion.exists(handle.store, ox.NamedNode(doc)):
        return _gone(handle, keys, doc, [doc])
    unsigned = f"{doc} has no log entry: its extraction is not complete yet, or it was loaded before signing was on"
    check = check_root(handle, keys, doc, None, quads_of=document_groups, unsigned=unsigned)
    return Verification(
        verified=check.status == "verified", traces=[check], problems=check.problems
    )


def audit_log(handle: Handle | None, seal: Seal | None) -> str:
    """explain ``audit-log``: the collection's log and the store's trusted public keys, as JSON."""
    if seal is None:
        raise ServiceError(
            ErrorType.BAD_REQUEST, "this store does not sign traces (its setting signing is off)"
        )
    if handle is not None:
        seal.settle(handle)
    found = log.export(handle.store) if handle else {"chains": {}, "heads": {}}
    keys = {kid: public_pem(key) for kid, key in seal.keys.public.items()}
    return json.dumps({**found, "keys": keys})


def verify_trace(handle: Handle | None, keys: Keyring, trace_id: str) -> Verification:
    """Verify a trace and its sub-traces; an erased one by its tombstone."""
    options = candidates(trace_id)
    row = next((r for u in options if handle and (r := handle.index.get(u))), None)
    if handle is None or row is None:
        return _gone(handle, keys, trace_id, options)
    roots = roots_of(handle, row.id)
    entities = {r: handle.index.entities(r) for r in roots}
    read: dict[str, str] = {}
    quads_of: Callable[[Handle, str], Groups] = trace_groups
    if isinstance(handle.store, ox.Store):  # read as text on two threads beside the entry checks
        with ThreadPoolExecutor(1) as pool:
            # Submitted before the log's entries are read (one query and 2,001 records
            # parsed for a 20,000-step trace), so the second core does not wait for them.
            text = pool.submit(text_digests, handle.store, entities, RETRIEVAL, READERS)
            found = _entry_checks(handle, keys, roots)
            read = text.result()
    else:
        if batched(handle.store):  # every root's quads in BATCH entities a request, not one a root
            quads_of = _read_all(handle, entities)
        found = _entry_checks(handle, keys, roots)
    checks = [
        finish(handle, r, f, quads_of, read.get(r, "")) for r, f in zip(roots, found, strict=True)
    ]
    problems = [p for c in checks for p in c.problems]
    return Verification(
        verified=all(c.status == "verified" for c in checks), traces=checks, problems=problems
    )


def _entry_checks(handle: Handle, keys: Keyring, roots: list[str]) -> list[SealCheck | Found]:
    """Each root's newest entry checked (``entry_check``), the log read for all at once."""
    rows = handle.index.rows(roots)
    reader = EntryReader(handle.store)
    reader.prefetch(roots)
    return [entry_check(reader, keys, r, rows.get(r)) for r in roots]


def _read_all(handle: Handle, entities: dict[str, list[str]]) -> Callable[[Handle, str], Groups]:
    """``trace_groups`` of every root in ``entities`` (root → its entities), read at once."""
    every = [named(u) for us in entities.values() for u in us]
    found = {g[0].subject: g for g in subject_groups(handle.store, every, RETRIEVAL) if g}
    return lambda _, root: [found[n] for u in entities[root] if (n := named(u)) in found]


def _gone(handle: Handle | None, keys: Keyring, trace_id: str, options: list[str]) -> Verification:
    """A trace the store no longer has: erased (a tombstone says why), or deleted unseen."""
    found = [
        (n, s) for u in options for n, s in (log.of_subject(handle.store, u) if handle else [])
    ]
    if not found:
        raise ServiceError(
            ErrorType.NOT_FOUND, f"no trace {trace_id!r} in this collection, nor in its log"
        )
    newest = ent.latest(s for _, s in found)
    checks = []
    for subject, signed in newest.items():
        problems = [as_problem(p) for p in entry_problems(keys, signed)]
        stone = signed.tombstone
        if stone is None:
            message = f"{subject} is gone from the store, but its log entry has no tombstone: deleted outside the store"
            problems.append(IntegrityProblem(code="deleted", message=message, subject=subject))
        checks.append(
            _check(
                signed,
                "erased" if stone and not problems else "tampered",
                problems,
                stone.reason if stone else "",
            )
        )
    problems = [p for c in checks for p in c.problems]
    return Verification(verified=not problems, traces=checks, problems=problems)


def _check(
    signed: ent.Signed, status: str, problems: list[IntegrityProblem], erased: str = ""
) -> SealCheck:
    e = signed.entry
    return SealCheck.model_validate(
        {
            "id": e.subject,
            "status": status,
            "digest": e.digest,
            "count": e.count,
            "key": e.kid,
            "entry": f"{e.chain}#{e.seq}",
            "signed_at": e.time,
            "erased": erased,
            "problems": problems,
        }
    )


def check_root(
    handle: Handle,
    keys: Keyring,
    root: str,
    row: TraceRow | None,
    *,
    quads_of: Callable[[Handle, str], Groups] = trace_groups,
    unsigned: str = "",
    read: str = "",
) -> SealCheck:
    """One trace root (or document): signature, inclusion and digest."""
    found = entry_check(EntryReader(handle.store), keys, root, row, unsigned)
    return finish(handle, root, found, quads_of, read)


def finish(
    handle: Handle,
    root: str,
    found: SealCheck | Found,
    quads_of: Callable[[Handle, str], Groups] = trace_groups,
    read: str = "",
) -> SealCheck:
    """A root's check completed with its digest's (``found``: its entry checked)."""
    if isinstance(found, SealCheck):
        return found
    node, newest, problems = found
    problems = problems + digest_problems(handle, root, node, newest, quads_of, read)
    return _check(newest, "tampered" if problems else "verified", problems)


def digest_problems(
    handle: Handle,
    root: str,
    node: ox.NamedNode,
    signed: ent.Signed,
    quads_of: Callable[[Handle, str], Groups] = trace_groups,
    read: str = "",
) -> list[IntegrityProblem]:
    """The stored quads against the signed digest; the entities that changed, named."""
    e = signed.entry
    if read == e.digest:  # read as text (``text_read.py``): trusted only when it matches
        return []
    now = fingerprint_groups(quads_of(handle, root))
    if now.digest == e.digest:
        return []
    text = log.manifest(handle.store, node)
    if text is None or hashlib.sha256(text.encode()).hexdigest() != e.manifest:
        message = f"{root}: its stored quads are not the ones signed ({e.count} signed, {now.count} now); the entry's manifest is missing or altered, so which entity changed cannot be named"
        return [IntegrityProblem(code="digest", message=message, subject=root)]
    return [
        IntegrityProblem(
            code="changed", message=f"{root}: {what} since it was signed", subject=root
        )
        for what in changes(parse_manifest(text), now.subjects)
    ] or [
        IntegrityProblem(
            code="digest", message=f"{root}: its stored quads are not the ones signed", subject=root
        )
    ]
