"""The pure integrity code: RDFC-1.0 digests, the signing key, log entries and the chain check."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pyoxigraph as ox
import pytest

from trustgraph_base.integrity import canonical, checks, entries, keys
from trustgraph_base.integrity.entries import Entry, Signed

G = ox.NamedNode("urn:graph:retrieval")
P = ox.NamedNode("urn:p")


def quads() -> list[ox.Quad]:
    a, b = ox.NamedNode("urn:trace:1"), ox.NamedNode("urn:trace:1/i1")
    return [
        ox.Quad(a, P, ox.Literal('tab\there "quoted" \\ back\nline \x01 é \u2028'), G),
        ox.Quad(a, P, ox.Triple(a, P, ox.Literal("x", language="en-GB")), G),
        ox.Quad(
            b,
            P,
            ox.Literal("1", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
            G,
        ),
        ox.Quad(b, P, ox.Literal("plain"), ox.DefaultGraph()),
        ox.Quad(ox.NamedNode("urn:trace:10"), P, a, G),
    ]


def rdfc(qs: list[ox.Quad]) -> bytes:
    d = ox.Dataset(qs)
    d.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    text = ox.serialize(d, format=ox.RdfFormat.N_QUADS) or b""
    return b"".join(sorted(text.splitlines(keepends=True)))


def test_the_fast_path_is_pyoxigraphs_rdfc_1_0() -> None:
    qs = quads()
    assert canonical.canonical_nquads(qs + qs[:2]) == rdfc(qs)


def test_blank_nodes_are_relabelled_canonically() -> None:
    def graph(label: str) -> list[ox.Quad]:
        x = ox.BlankNode(label)
        return [ox.Quad(ox.NamedNode("urn:s"), P, x, G), ox.Quad(x, P, ox.Literal("v"), G)]

    assert canonical.fingerprint(graph("one")).digest == canonical.fingerprint(graph("two")).digest
    assert canonical.canonical_nquads(graph("one")) == rdfc(graph("zz"))


def test_a_changed_quad_is_named_by_its_subject() -> None:
    qs = quads()
    before = canonical.fingerprint(qs)
    edited = [*qs[:2], ox.Quad(qs[2].subject, P, ox.Literal("2"), G), *qs[3:4]]
    after = canonical.fingerprint(edited)
    assert after.digest != before.digest
    signed = canonical.parse_manifest(before.manifest)
    assert canonical.changes(signed, after.subjects) == [
        "<urn:trace:10> was removed",
        "<urn:trace:1/i1> was changed",
    ]
    assert canonical.changes(signed, before.subjects) == []


def by_subject(qs: list[ox.Quad]) -> list[list[ox.Quad]]:
    groups: dict[str, list[ox.Quad]] = {}
    for q in qs:
        groups.setdefault(str(q.subject), []).append(q)
    return list(groups.values())


def test_per_subject_groups_give_the_same_fingerprint_as_the_whole() -> None:
    # ``urn:trace:10`` sorts before ``urn:trace:1`` (``0`` < ``>``), ``urn:trace:1/i1`` after:
    # the groups must come out in the canonical form's order, not their IRIs'.
    qs = [*quads(), ox.Quad(ox.NamedNode("urn:trace:1-"), P, ox.Literal("dash"), G)]
    whole = canonical.fingerprint(qs)
    for groups in (by_subject(qs), list(reversed(by_subject(qs))), [*by_subject(qs), []]):
        assert canonical.fingerprint_groups(groups) == whole
    # A redelivered quad is one line, as in the whole form.
    assert canonical.fingerprint_groups(by_subject(qs + qs[:1])) == whole


def test_per_subject_groups_fall_back_when_they_are_not_per_subject() -> None:
    qs = quads()
    x = ox.BlankNode("b1")
    with_blank = [*qs, ox.Quad(x, P, ox.Literal("v"), G), ox.Quad(qs[0].subject, P, x, G)]
    mixed = [qs[:3], qs[3:]]  # a group holding two subjects
    split = [[q] for q in qs]  # a subject in two groups
    for groups, all_quads in ((by_subject(with_blank), with_blank), (mixed, qs), (split, qs)):
        assert canonical.fingerprint_groups(groups) == canonical.fingerprint(all_quads)


def test_the_key_is_made_owner_only_and_a_readable_one_is_refused(tmp_path: Path) -> None:
    key, public = tmp_path / "signing" / "key.pem", tmp_path / "signing" / "public"
    ring = keys.open_keyring(key, public)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert ring.kid in ring.public and ring.kid.startswith("ed25519:")
    assert keys.open_keyring(key, public).kid == ring.kid  # the same key at the next start
    os.chmod(key, 0o644)
    with pytest.raises(keys.KeyFileError, match=r"mode 0644: others may read it. Run 'chmod 600"):
        keys.open_keyring(key, public)


def test_rotation_keeps_old_signatures_verifiable(tmp_path: Path) -> None:
    key, public = tmp_path / "key.pem", tmp_path / "public"
    old = keys.open_keyring(key, public)
    sig = old.sign(b"message")
    old_id, new_id = keys.rotate(key, public)
    assert old_id == old.kid and new_id != old_id
    new = keys.open_keyring(key, public)
    assert new.kid == new_id
    assert new.verify(old_id, sig, b"message") is None
    assert new.verify(old_id, sig, b"other") == "the signature does not match"
    assert "not among the trusted keys" in (keys.Keyring().verify(old_id, sig, b"message") or "")


def test_a_keyring_with_the_private_key_answers_as_one_without(tmp_path: Path) -> None:
    """The store checks its own signatures by signing again (Ed25519 is deterministic): the
    same answer as verifying with the public key only, for every case."""
    key, public = tmp_path / "key.pem", tmp_path / "public"
    old = keys.open_keyring(key, public)
    keys.rotate(key, public)
    own = keys.open_keyring(key, public)
    public_only = keys.Keyring(public=dict(own.public))
    mine, theirs = own.sign(b"message"), old.sign(b"message")
    cases = [
        (own.kid, mine, b"message"),  # its own signature
        (own.kid, mine, b"other"),  # over another message
        (own.kid, theirs, b"message"),  # another key's signature, said to be its own
        (old.kid, theirs, b"message"),  # the rotated key's, still trusted
        (old.kid, mine, b"message"),
        (own.kid, mine[:-4] + "AAA=", b"message"),  # altered
        (own.kid, "not base64!", b"message"),
        ("ed25519:" + "0" * 32, mine, b"message"),  # an unknown key
    ]
    answers = [own.verify(*c) for c in cases]
    assert answers == [public_only.verify(*c) for c in cases]
    assert [a is None for a in answers] == [True, False, False, True, False, False, False, False]


def chain(ring: keys.Keyring, n: int) -> list[Signed]:
    out: list[Signed] = []
    prev = entries.GENESIS
    for i in range(n):
        e = Entry(
            chain="c",
            seq=i,
            prev=prev,
            kind="trace",
            subject=f"urn:trace:{i}",
            digest="d" * 64,
            count=1,
            manifest="m" * 64,
            time=f"2026-12-04T20:00:0{i}Z",
            kid=ring.kid,
        )
        out.append(entries.sign_entry(ring, e))
        prev = e.hash
    return out


def codes(ring: keys.Keyring, stored: list[tuple[int, Signed]], last: Signed) -> list[str]:
    head = entries.sign_checkpoint(
        ring, "c", last.entry.seq, last.entry.hash, "2026-12-04T21:00:00Z"
    )
    return [p.code for p in checks.chain_problems(ring, "c", stored, head)]


def test_the_chain_check_names_each_kind_of_tampering(tmp_path: Path) -> None:
    ring = keys.open_keyring(tmp_path / "key.pem", tmp_path / "public")
    log = chain(ring, 5)
    at = list(enumerate(log))
    assert codes(ring, at, log[-1]) == []
    assert codes(ring, at[:2] + at[3:], log[-1]) == ["gap"]  # an entry removed
    assert codes(ring, at[:-1], log[-1]) == ["truncated"]  # the end cut off
    swapped = [*at[:2], (2, log[3]), (3, log[2]), *at[4:]]
    assert "position" in codes(ring, swapped, log[-1])  # reordered
    sigs = [
        log[1].model_copy(update={"sig": log[2].sig}),
        log[2].model_copy(update={"sig": log[1].sig}),
    ]
    found = checks.chain_problems(
        ring, "c", at[:1] + list(zip([1, 2], sigs, strict=True)) + at[3:], None
    )
    moved = [p for p in found if p.code == "moved"]
    assert len(moved) == 2 and "urn:trace:2" in moved[0].message
    erased = entries.sign_tombstone(ring, log[2], "purge: older than 30d", "2026-12-04T22:00:00Z")
    assert codes(ring, [*at[:2], (2, erased), *at[3:]], log[-1]) == []  # still verifies
    assert erased.tombstone is not None
    forged = erased.model_copy(
        update={"tombstone": erased.tombstone.model_copy(update={"reason": "x"})}
    )
    assert codes(ring, [*at[:2], (2, forged), *at[3:]], log[-1]) == ["tombstone"]
