"""Checks of log entries and chains (docs/audit.md): a signature that is not the key's, a
tombstone that does not match its entry, a gap, a reordering, a cut end against the signed
checkpoint — each a named ``Problem``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from trustgraph_base.integrity.entries import GENESIS, Checkpoint, Signed
from trustgraph_base.integrity.keys import Keyring


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
    after: tuple[str, int] = (GENESIS, 0),
    end: bool = True,
    others: dict[str, Signed] | None = None,
) -> list[Problem]:
    """Check one chain: each entry as stored at position ``seq`` (its key in the store), its
    signature, its link to the one before, no gap, and the signed checkpoint at its end.
    A page of a chain: ``after`` is the hash and next position of the entry before it,
    ``end`` whether the chain ends in it (then its checkpoint is checked); ``others`` (hash →
    entry), where a signature made over another entry is looked for (default: the chain's)."""
    out: list[Problem] = []
    entries = sorted(stored, key=lambda x: x[0])
    by_hash = others if others is not None else {s.entry.hash: s for _, s in entries}
    prev_hash, expected = after
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
    if end:
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
