"""The RDFC-1.0 canonical form of a set of quads, and its SHA-256 digest.

RDFC-1.0 (W3C Recommendation) relabels blank nodes canonically, then writes the
dataset as canonical N-Quads, one statement a line, sorted by code point. A trace's quads
have no blank nodes (every entity is an IRI), and then the relabelling is the identity:
the form is the sorted, de-duplicated lines of pyoxigraph's N-Quads serialisation (tested
equal to its canonical output). With a blank node anywhere (a triple term included)
pyoxigraph's own ``Dataset.canonicalize(RDFC_1_0)`` runs (~10x slower, so only then).
UTF-8 byte order is code point order, so sorting the encoded lines is the spec's order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import groupby

import pyoxigraph as ox


def canonical_lines(quads: Iterable[ox.Quad]) -> list[bytes]:
    """The canonical N-Quads lines of the set of quads (each ending in `` .\\n``), sorted."""
    quads = list(quads)
    text = ox.serialize(quads, format=ox.RdfFormat.N_QUADS) or b""
    # A blank node is written ``_:label``; without one anywhere (a literal holding "_:" only
    # takes the slow path, which gives the same lines) the lines are already canonical.
    if b"_:" not in text:
        return sorted(set(text.splitlines(keepends=True)))
    dataset = ox.Dataset(quads)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    text = ox.serialize(dataset, format=ox.RdfFormat.N_QUADS) or b""
    return sorted(set(text.splitlines(keepends=True)))


def canonical_nquads(quads: Iterable[ox.Quad]) -> bytes:
    """The RDFC-1.0 canonical N-Quads document of the quads."""
    return b"".join(canonical_lines(quads))


@dataclass(frozen=True)
class Fingerprint:
    """What a signature covers: the canonical form's SHA-256 and size, and per subject the
    SHA-256 of its lines (the ``manifest``: what lets a verifier name the entity that changed)."""

    digest: str
    count: int
    subjects: dict[str, str]  # subject as written in the lines (``<iri>``) → its lines' SHA-256

    @property
    def manifest(self) -> str:
        """The per-subject digests as text, one ``subject digest`` a line, sorted."""
        return "".join(f"{s} {d}\n" for s, d in sorted(self.subjects.items()))


def fingerprint(quads: Iterable[ox.Quad]) -> Fingerprint:
    """The fingerprint of a set of quads (one pass over its sorted canonical lines)."""
    lines = canonical_lines(quads)
    whole = hashlib.sha256()
    subjects: dict[str, str] = {}
    # Sorted lines keep a subject's lines together: a subject ends at its first space
    # (IRIs and blank labels have none), and a space sorts before any IRI character.
    for subject, group in groupby(lines, key=lambda line: line.split(b" ", 1)[0]):
        part = hashlib.sha256()
        for line in group:
            whole.update(line)
            part.update(line)
        subjects[subject.decode()] = part.hexdigest()
    return Fingerprint(whole.hexdigest(), len(lines), subjects)


def fingerprint_groups(groups: Iterable[Iterable[ox.Quad]]) -> Fingerprint:
    """``fingerprint`` of the union of ``groups`` when each group is every quad of one subject
    (as a store read per subject gives them), with no Python work per quad or line: each
    group is serialised, sorted and hashed whole. The subjects' lines are contiguous ranges
    of the sorted form (each starts with ``<iri> ``, no IRI holds ``>`` or a space), so the
    groups ordered by their first line are the canonical form. Anything else — a blank node,
    a group mixing subjects, a subject in two groups — takes ``fingerprint``'s path."""
    lists = [list(g) for g in groups]
    parts: dict[bytes, list[bytes]] = {}
    for group in lists:
        text = ox.serialize(group, format=ox.RdfFormat.N_QUADS) or b""
        if not text:
            continue
        lines = sorted(set(text.splitlines(keepends=True)))
        token = lines[0].split(b" ", 1)[0] + b" "
        if b"_:" in text or not lines[-1].startswith(token) or token in parts:
            return fingerprint(q for g in lists for q in g)
        parts[token] = lines
    return fingerprint_parts([b"".join(lines) for lines in parts.values()])


def fingerprint_parts(parts: list[bytes]) -> Fingerprint:
    """``fingerprint`` of blank-node-free canonical lines given per subject: each part is
    every line of one subject, sorted, each once, joined. Parts sort as their first lines
    do (they differ within the subject, ``<iri> ``, and no IRI holds ``>``)."""
    whole = hashlib.sha256()
    subjects: dict[str, str] = {}
    for part in sorted(parts):
        whole.update(part)
        subjects[part[: part.index(b"> ") + 1].decode()] = hashlib.sha256(part).hexdigest()
    # Each line ends in its only raw line break (N-Quads escapes a literal's).
    return Fingerprint(whole.hexdigest(), sum(p.count(b"\n") for p in parts), subjects)


def parse_manifest(text: str) -> dict[str, str]:
    """``Fingerprint.manifest`` read back (subject → digest)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        subject, _, value = line.rpartition(" ")
        if subject:
            out[subject] = value
    return out


def changes(signed: dict[str, str], now: dict[str, str]) -> list[str]:
    """What differs between the signed per-subject digests and the present ones, named."""
    out = [f"{s} was removed" for s in sorted(signed.keys() - now.keys())]
    out += [f"{s} was added" for s in sorted(now.keys() - signed.keys())]
    out += [f"{s} was changed" for s in sorted(signed.keys() & now.keys()) if signed[s] != now[s]]
    return out
