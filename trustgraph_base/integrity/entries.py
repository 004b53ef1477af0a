"""Log entries, tombstones and checkpoints (their checks: ``checks.py``).

An entry commits to what was signed, its fingerprint, when, with which key, and the hash
of its chain's previous entry (``prev``); it is signed over its ``hash`` (its fields as
canonical JSON, SHA-256). A removed entry leaves a gap, a reordered or edited one breaks
``prev`` or a signature, the chain's signed checkpoint shows a cut end; a tombstone keeps
every field the chain hashes, so an erasure still verifies (docs/audit.md).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import Any, Self

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

    @cached_property
    def hash(self) -> str:
        """Computed once (a check asks for it several times): the entry is frozen."""
        return _hash(self.model_dump())

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        copy = super().model_copy(update=update, deep=deep)
        copy.__dict__.pop("hash", None)  # other fields, another hash
        return copy


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


def erased_by_kind(newest: Iterable[Signed]) -> dict[str, int]:
    """Erased subjects counted once each by kind (``document``, ``trace``), from their newest
    entries: a document signed again as its extraction went on has several erased entries."""
    out: dict[str, int] = {}
    for s in newest:
        if s.tombstone is not None:
            out[s.entry.kind] = out.get(s.entry.kind, 0) + 1
    return out
