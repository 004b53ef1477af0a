"""Log entries, tombstones and checkpoints, and the check of a chain of them.

An entry commits to what was signed, its fingerprint, when, with which key, and the hash
of its chain's previous entry (``prev``); it is signed over its ``hash`` (its fields as
canonical JSON, SHA-256). A removed entry leaves a gap, a reordered or edited one breaks
``prev`` or a signature, the chain's signed checkpoint shows a cut end; a tombstone keeps
every field the chain hashes, so an erasure still verifies (docs/audit.md).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from trustgraph_base.integrity.keys import Keyring

GENESIS = "0" * 64  # ``prev`` of a chain's first entry


def _hash(fields: dict[str, object]) -> str:
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Entry(_Frozen):
    """What one log entry commits to (all of it hashed and signed)."""

    chain: str
    seq: int
    prev: str
    kind: str  # "trace" (a trace root's own quads)
    subject: str  # the trace root's IRI
    digest: str
    count: int
    manifest: str  # SHA-256 of the fingerprint's manifest text
    time: str  # xsd:dateTime, UTC
    kid: str
    reason: str = ""  # why it was signed again (an erasure's marks), empty at first signing

    @property
    def hash(self) -> str:
        return _hash(self.model_dump())


class Tombstone(_Frozen):
    """What an erasure left of an entry: why, when, signed over the entry's hash."""

    reason: str
    time: str
    kid: str
    sig: str = ""

    def message(self, entry_hash: str) -> bytes:
        return _hash({"entry": entry_hash, "reason": self.reason, "time": self.time}).encode()


class Signed(_Frozen):
    """An entry, its signature (over ``entry.hash``) and its tombstone once erased."""

    entry: Entry
    sig: str
    tombstone: Tombstone | None = None

    @property
    def hash(self) -> str:
        return self.entry.hash


class Checkpoint(_Frozen):
    """A chain's signed head: its last entry's ``seq`` and hash."""

    chain: str
    seq: int
    hash: str
    time: str
    kid: str
    sig: str = ""

    def message(self) -> bytes:
        return _hash(
            {"chain": self.chain, "seq": self.seq, "hash": self.hash, "time": self.time}
        ).encode()


def sign_entry(keys: Keyring, entry: Entry, entry_hash: str = "") -> Signed:
    """``entry`` signed (``entry_hash``: its hash, when the caller has it already)."""
    return Signed(entry=entry, sig=keys.sign((entry_hash or entry.hash).encode()))


def sign_tombstone(keys: Keyring, signed: Signed, reason: str, time: str) -> Signed:
    stone = Tombstone(reason=reason, time=time, kid=keys.kid)
    stone = stone.model_copy(update={"sig": keys.sign(stone.message(signed.entry.hash))})
    return signed.model_copy(update={"tombstone": stone})


def sign_checkpoint(keys: Keyring, chain: str, seq: int, entry_hash: str, time: str) -> Checkpoint:
    head = Checkpoint(chain=chain, seq=seq, hash=entry_hash, time=time, kid=keys.kid)
    return head.model_copy(update={"sig": keys.sign(head.message())})


@dataclass(frozen=True)
class Problem:
    """One thing a verification found wrong, named: ``code`` for programs, ``message`` for people."""

    code: str  # signature, moved, gap, order, position, duplicate, truncated, extra, tombstone, checkpoint, digest, missing, deleted, unsigned
    message: str
    subject: str = ""


def entry_problems(
    keys: Keyring, signed: Signed, others: dict[str, Signed] | None = None
) -> list[Problem]:
    """The entry's signature and tombstone checked; a signature made over another entry of
    ``others`` (hash → entry) is named as such (two entries' signatures swapped)."""
    e = signed.entry
    out: list[Problem] = []
    why = keys.verify(e.kid, signed.sig, e.hash.encode())
    if why is not None:
        elsewhere = [
            o.entry
            for o in (others or {}).values()
            if o.entry.hash != e.hash
            and keys.verify(o.entry.kid, signed.sig, o.entry.hash.encode()) is None
        ]
        if elsewhere:
            why = f"its signature was made over another entry: {elsewhere[0].chain}#{elsewhere[0].seq} ({elsewhere[0].subject})"
            out.append(Problem("moved", f"entry {e.chain}#{e.seq} ({e.subject}): {why}", e.subject))
        else:
            out.append(
                Problem("signature", f"entry {e.chain}#{e.seq} ({e.subject}): {why}", e.subject)
            )
    stone = signed.tombstone
    if stone is not None:
        why = keys.verify(stone.kid, stone.sig, stone.message(e.hash))
        if why is not None:
            out.append(
                Problem(
                    "tombstone",
                    f"tombstone of entry {e.chain}#{e.seq} ({e.subject}): {why}",
                    e.subject,
                )
            )
    return out


def chain_problems(
    keys: Keyring,
    chain: str,
    stored: Iterable[tuple[int, Signed]],
    head: Checkpoint | None,
) -> list[Problem]:
    """Check one chain: each entry as stored at position ``seq`` (its key in the store), its
    signature, its link to the one before, no gap, and the signed checkpoint at its end."""
    out: list[Problem] = []
    entries = sorted(stored, key=lambda x: x[0])
    by_hash = {s.entry.hash: s for _, s in entries}
    prev_hash, expected = GENESIS, 0
    for position, signed in entries:
        e = signed.entry
        out += entry_problems(keys, signed, by_hash)
        if e.seq != position or e.chain != chain:
            out.append(
                Problem(
                    "position",
                    f"entry stored as {chain}#{position} says it is {e.chain}#{e.seq}: the log was reordered",
                    e.subject,
                )
            )
        if position < expected:
            out.append(Problem("duplicate", f"two entries at {chain}#{position}", e.subject))
            continue
        if position > expected:
            out.append(
                Problem(
                    "gap",
                    f"entries {chain}#{expected}..{position - 1} are missing: removed from the log",
                    e.subject,
                )
            )
        elif e.prev != prev_hash:
            out.append(
                Problem(
                    "order",
                    f"entry {chain}#{position} ({e.subject}) does not follow the entry before it: reordered, replaced or edited",
                    e.subject,
                )
            )
        prev_hash, expected = e.hash, position + 1
    out += head_problems(keys, chain, expected - 1, prev_hash, head)
    return out


def head_problems(
    keys: Keyring, chain: str, last: int, last_hash: str, head: Checkpoint | None
) -> list[Problem]:
    """The chain's end against its signed checkpoint."""
    if head is None:
        return (
            [Problem("checkpoint", f"chain {chain} has no signed checkpoint")] if last >= 0 else []
        )
    why = keys.verify(head.kid, head.sig, head.message())
    if why is not None or head.chain != chain:
        return [
            Problem(
                "checkpoint",
                f"checkpoint of chain {chain}: {why or 'it names chain ' + head.chain}",
            )
        ]
    if head.seq > last:
        return [
            Problem(
                "truncated",
                f"chain {chain} ends at #{last} but its checkpoint is at #{head.seq}: entries were cut from its end",
            )
        ]
    if head.seq < last:
        return [
            Problem(
                "extra",
                f"chain {chain} has entries after its checkpoint (#{head.seq}..#{last}): added outside the store",
            )
        ]
    if head.hash != last_hash:
        return [
            Problem(
                "checkpoint",
                f"chain {chain}'s last entry #{last} is not the one its checkpoint signed",
            )
        ]
    return []


def _order(s: Signed) -> tuple[str, int, str]:
    return (s.entry.time, s.entry.count, s.entry.hash)


def latest(entries: Iterable[Signed]) -> dict[str, Signed]:
    """The newest entry per subject (a trace signed again after an erasure's marks)."""
    out: dict[str, Signed] = {}
    for s in entries:
        cur = out.get(s.entry.subject)
        # The later signing; at the same millisecond (two replicas) the one covering more.
        if cur is None or _order(s) > _order(cur):
            out[s.entry.subject] = s
    return out
