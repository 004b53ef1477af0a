"""What a verification of signed traces and the log found (explain ``verify-trace`` /
``verify-log``; docs/audit.md)."""

from __future__ import annotations

from typing import Literal

from trustgraph_base.schema.core import Message

SealStatus = Literal["verified", "in-progress", "unsigned", "tampered", "erased"]


class IntegrityProblem(Message):
    """One thing found wrong: ``code`` for programs (signature, moved, gap, order, position,
    duplicate, truncated, extra, tombstone, checkpoint, digest, changed, unsigned, deleted,
    missing), ``message`` naming it for people, ``subject`` the trace it concerns."""

    code: str
    message: str
    subject: str = ""


class SealCheck(Message):
    """One trace root's signature, digest and log inclusion checked."""

    id: str
    status: SealStatus
    digest: str = ""  # the signed SHA-256 of its RDFC-1.0 form
    count: int = 0  # quads it covers
    key: str = ""  # key id
    entry: str = ""  # "<chain>#<seq>" in the collection's log
    signed_at: str = ""
    erased: str = ""  # the tombstone's reason, for an erased trace
    problems: list[IntegrityProblem] = []


class Verification(Message):
    """``verified`` only when nothing at all was found wrong."""

    verified: bool
    traces: list[SealCheck] = []  # verify-trace: the trace and each sub-trace
    problems: list[IntegrityProblem] = []  # everything found, the traces' included
    entries: int = 0  # verify-log: entries checked
    chains: int = 0
    erased: int = 0  # entries with a tombstone
    erased_kinds: dict[str, int] = {}  # erased documents and traces, each once, by kind
    keys: list[str] = []  # key ids the log's signatures name
