"""Signing traces as they end, and tombstones when they are erased.

After each batch the writer hands the retrieval quads it wrote to ``Seal.after_write``: every
trace root they touched whose trace has ended (complete, failed or interrupted, by the trace
index) is fingerprinted from its stored quads (RDFC-1.0, SHA-256, with the per-entity
manifest; on the embedded store from what the writer wrote of it when that is all the store
holds, ``written.py``), signed with the deployment's key and appended to this process's chain
of the collection's log (``log.py``). A trace in progress is not signed; a batch that adds to
an ended trace (a late message, an erasure's marks) signs it again in a new entry, which then
is the one that counts; a redelivered batch changes no digest and adds nothing. Deleting a
trace (a request, retention, a document's erasure with ``purge_traces``) gives each of its
entries a signed tombstone instead. One chain per writer: the embedded store's single writer
continues its chain across restarts (from the checkpoint), and each replica on a SPARQL
server writes a chain of its own (``log_chain``), so replicas never race for a position.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pyoxigraph as ox

from trustgraph_base.integrity import entries as ent
from trustgraph_base.integrity.canonical import Fingerprint, fingerprint_groups
from trustgraph_base.integrity.keys import Keyring, open_keyring, public_pem
from trustgraph_base.provenance import now_iso
from trustgraph_base.provenance.uris import trace_root
from trustgraph_flow.store.core.backend import Backend, Handle, subject_groups
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.governance import log
from trustgraph_flow.store.governance.backlog import Backlog
from trustgraph_flow.store.governance.resign import sha256_text, signed_again
from trustgraph_flow.store.governance.written import Written
from trustgraph_flow.store.views.lookup import RETRIEVAL

log_ = logging.getLogger(__name__)
PRUNE_EVERY = 64  # appends between removals of a chain's older checkpoints (one transaction each)

Groups = list[list[ox.Quad]]  # a signed unit's quads, one list per subject
Roots = Set[str] | None


def trace_groups(handle: Handle, root: str) -> Groups:
    """A trace root's own quads: every quad about each of its entities in the retrieval
    graph, one list per entity."""
    return subject_groups(handle.store, [named(u) for u in handle.index.entities(root)], RETRIEVAL)


@dataclass
class Seal:
    """The deployment's keyring and this writer's chain, per collection."""

    keys: Keyring
    chain: str
    backlog: Backlog | None = None  # ended traces signed a moment later, in batches
    written: Written | None = None  # what the writer wrote of unsigned traces (embedded)
    _heads: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _pem: str = ""
    _published: set[tuple[str, str]] = field(default_factory=set)

    def __post_init__(self) -> None:
        assert self.keys.signer is not None, "a seal signs: its keyring needs the private key"
        self._pem = public_pem(self.keys.signer.public_key())

    def after_write(
        self,
        handle: Handle,
        quads: Iterable[ox.Quad],
        reason: str = "",
        roots: Roots = None,
        fresh: Set[str] = frozenset(),
    ) -> int:
        """Sign every ended trace the batch's retrieval quads touched; how many were signed.
        ``roots``: those traces when known (the index's ``record``), else read off each quad;
        ``fresh``: those the batch began (the writer's ``claim``: nothing in the store before)."""
        batch = quads if isinstance(quads, list) else list(quads)
        if roots is None:
            subjects = {q.subject for q in batch if type(q.subject) is ox.NamedNode}
            roots = {r for s in subjects if (r := trace_root(s.value))}
        if not roots:
            return 0
        if self.written is not None and isinstance(handle.store, ox.Store):
            self.written.note(handle.key, roots, batch, fresh)
        rows = handle.index.rows(roots)
        ended = sorted(root for root, row in rows.items() if row.status != "in-progress")
        if self.backlog is not None:
            ended = self.backlog.defer(handle, ended, self._sign_held)
        # Nothing to sign at once (most batches: in progress, or held) calls nothing; the
        # batch is a set only for what is (``only_added`` reads it).
        return len(self.sign_all(handle, ended, reason, set(batch))) if ended else 0

    def _sign_held(self, handle: Handle, roots: list[str]) -> object:
        return self.sign_all(handle, roots, "")

    def settle(self, handle: Handle) -> int:
        """Sign the collection's backlog now (before anything reads or erases signatures)."""
        return self.backlog.sign(handle, self._sign_held) if self.backlog is not None else 0

    def flush(self, stores: Backend) -> int:
        """Sign every collection's backlog (the store's clock); how many traces."""
        return self.backlog.flush(stores, self._sign_held) if self.backlog is not None else 0

    def sign(self, handle: Handle, root: str, reason: str = "") -> ent.Signed | None:
        """Sign the trace root's present quads, unless its newest entry already has this digest."""
        return next(iter(self.sign_all(handle, [root], reason)), None)

    def sign_all(
        self,
        handle: Handle,
        roots: list[str],
        reason: str,
        added: set[ox.Quad] | None = None,
        *,
        quads_of: Callable[[Handle, str], Groups] = trace_groups,
        kind: str = "trace",
    ) -> list[ent.Signed]:
        """Sign each root whose digest changed: their entries and one checkpoint in one write.

        A root signed before is signed again only if what changed since is what ``added``
        (this batch) brought: a trace edited by hand is never signed over (laundered) by a
        later write to it; it keeps its old signature, which names the edit."""
        changed: list[tuple[str, Fingerprint]] = []
        refused: list[str] = []
        recorded = {}  # what the writer wrote, when it is all the store holds (``written.py``)
        if self.written is not None and quads_of is trace_groups:
            recorded = self.written.fingerprints(handle, roots)
        for root in roots:
            groups: Groups | None = None
            fp = recorded.get(root)
            if fp is None:
                groups = quads_of(handle, root)
                fp = fingerprint_groups(groups)
            stored = log.of_subject(handle.store, root)
            newest = ent.latest(s for _, s in stored).get(root)
            if newest is None or newest.tombstone is not None:
                changed.append((root, fp))
            elif newest.entry.digest != fp.digest:
                node = next(n for n, s in stored if s is newest)
                read = partial(quads_of, handle, root)
                if signed_again(handle, node, newest, fp, groups, read, added or set()):
                    changed.append((root, fp))
                else:
                    refused.append(root)  # kept its signature, which names the change
        signed = self.append(handle, changed, reason, kind) if changed else []
        if self.written is not None and quads_of is trace_groups:
            # Signed or unchanged: the record stays a while, for a late message (a verdict
            # after its answer); refused: if written again, the trace is read back.
            self.written.signed(handle.key, [r for r in roots if r not in refused])
            self.written.drop(handle.key, refused)
        return signed

    def append(
        self, handle: Handle, found: list[tuple[str, Fingerprint]], reason: str, kind: str
    ) -> list[ent.Signed]:
        manifests = [fp.manifest for _, fp in found]  # each text made once (sorted, joined)
        with self._lock:
            (seq, prev), signed, when = self._head(handle), [], now_iso()
            for (subject, fp), manifest in zip(found, manifests, strict=True):
                entry = ent.Entry(
                    chain=self.chain,
                    seq=seq,
                    prev=prev,
                    kind=kind,
                    subject=subject,
                    digest=fp.digest,
                    count=fp.count,
                    manifest=sha256_text(manifest),
                    time=when,
                    kid=self.keys.kid,
                    reason=reason,
                )
                entry_hash = entry.hash  # JSON and SHA-256: once
                signed.append(ent.sign_entry(self.keys, entry, entry_hash))
                seq, prev = seq + 1, entry_hash
            head = ent.sign_checkpoint(self.keys, self.chain, seq - 1, prev, when)
            # The public key's quad once per collection and process (it never changes).
            pem = "" if handle.key in self._published else self._pem
            log.append(handle.store, signed, manifests, head, pem)
            self._published.add(handle.key)
            if seq // PRUNE_EVERY != (seq - len(found)) // PRUNE_EVERY:
                log.prune(handle.store, self.chain)
            self._heads[handle.key] = (seq, prev)
            return signed

    def _head(self, handle: Handle) -> tuple[int, str]:
        """The next position of this chain in the collection, and the hash it must link to."""
        known = self._heads.get(handle.key)
        if known is None:
            head = log.heads(handle.store).get(self.chain)
            known = (head.seq + 1, head.hash) if head else (0, ent.GENESIS)
        return known

    def forget(self, key: tuple[str, str]) -> None:
        """A dropped collection: its chain starts again if it is written again."""
        with self._lock:
            self._heads.pop(key, None)
            self._published.discard(key)
        if self.written is not None:
            self.written.forget(key)
        if self.backlog is not None:
            self.backlog.forget(key)

    def erase(self, handle: Handle, roots: Iterable[str], reason: str) -> int:
        """Give every entry of these (deleted) trace roots a signed tombstone; how many."""
        when, count, roots = now_iso(), 0, list(roots)
        if self.written is not None:
            self.written.drop(handle.key, roots)
        for root in roots:
            for node, signed in log.of_subject(handle.store, root):
                if signed.tombstone is None:
                    stone = ent.sign_tombstone(self.keys, signed, reason, when).tombstone
                    assert stone is not None
                    log.bury(handle.store, node, stone)
                    count += 1
        return count


def open_seal(
    *,
    data_dir: str,
    key_file: str = "",
    public_dir: str = "",
    chain: str = "",
    server: bool = False,
    defer: bool = False,
) -> Seal:
    """The store's seal from its settings (by default the embedded store's): the key (made
    at first start, 0600) under ``<data_dir>/signing`` unless configured, and this writer's chain: ``local`` for the
    embedded store's one writer, a fresh one per process on a server unless named (a
    replica that keeps its name keeps its chain; two running processes must not share one).
    A key file others may read stops the processor (``KeyFileError``, one line). With
    ``defer`` (the embedded store) ended traces are signed in batches (``backlog.py``)."""
    base = Path(data_dir) / "signing"
    keys = open_keyring(
        Path(key_file) if key_file else base / "key.pem",
        Path(public_dir) if public_dir else base / "public",
    )
    if not chain:
        chain = "r-" + uuid.uuid4().hex[:12] if server else "local"
    log_.info("signing ended traces with key %s (log chain %s)", keys.kid, chain)
    backlog = Backlog(base / "unsigned") if defer and not server else None
    return Seal(keys, chain, backlog, None if server else Written())
