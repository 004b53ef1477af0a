"""What the writer wrote of each trace not yet signed, so signing need not read it back.

Reading a trace back from the embedded store costs ~5 µs of CPU per quad (pyoxigraph
looks up every term's text in RocksDB). The writer already holds those quads: ``Written``
keeps, per trace root not yet signed, the N-Quads text of its quads in each retrieval
batch that touched it (one serialisation per root and batch, of the quads grouped by root
as they come: a writer's come subject by subject).
At the signing pass each root's texts become its own sorted list of lines (an entity's
root is its IRI's, ``trace_root``, as the index's is), so each of its entities' lines are
one contiguous range, found by bisection (not per line). One list per root, not one for the
pass: an import's pass signs ~1,000 traces, and one sort of their ~200,000 lines cost 2-3
times the sorts of each trace's ~200 (docs/performance.md, session 21). Their hashes
are ``fingerprint_groups``' of the store's quads. Lines with a typed literal or a triple
term are put in the store's normal form first: pyoxigraph's stores keep some literals in
a normal form (``"1.50"^^xsd:decimal`` as ``"1.5"``, a time's ``.120Z`` as ``.12Z``). The
forms our writers make (a UTC time, a canonical integer or decimal) are rewritten without
a store (``stored_form.py``); any other goes through a store in memory, a new one each time:
one kept and cleared after each use never let go of what it had held (~1 KB a pass, and
each later pass ~0.15 µs slower; docs/performance.md). A text with a blank node is not kept (RDFC-1.0 relabels
those: the trace is read back).

A root's record is used only if it is the whole of what the store holds: the batch that
began it began the trace (``fresh``: the index's ``claim``, before the store write, found
none of its entities; ``backends/embedded/claims.py``), or else per entity of the root (from
the trace index) the store's count of quads (one ``COUNT`` query for the pass, over encoded
terms: nothing decoded) equals the record's. A trace written partly before this process
started, or by anything but this writer, is read back as before;
quads replaced one for one after the write (a hand edit) are not the ones signed, and the
verifier names the edit (the store's own replacements, ``migrate.py``, run at its start,
before any write is recorded). A record lives until its trace is erased or refused a new
signature, the collection dropped, or ``SIGNED_KEPT`` traces signed since it was (kept
after signing for a late message: a GraphRAG answer's verification comes after its
synthesis, and its trace, signed again, need not be read back); past ``BYTES_MAX`` all
are dropped (then read back).
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Iterable, Set

import pyoxigraph as ox

from trustgraph_base.integrity.canonical import Fingerprint, fingerprint_parts
from trustgraph_base.provenance.uris import trace_root
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance.stored_form import known_normal, odd_lines
from trustgraph_flow.store.views.lookup import RETRIEVAL

BYTES_MAX = 64 << 20  # batch texts kept, all collections together
SIGNED_KEPT = 1024  # signed traces' records kept for a late message (agent traces': ~18 MB)


def holds(text: bytes, mark: bytes) -> bool:
    """``mark in text``, answered at once when the text lacks one of the mark's bytes: a
    search for ``_:`` or ``<<(`` in N-Quads (a ``:`` or ``<`` in every IRI) costs ~3 µs a KB,
    one for a byte the text does not hold ~0.015 µs a KB."""
    return all(mark[i : i + 1] in text for i in range(len(mark))) and mark in text


Key = tuple[str, str]


class Written:
    """Per collection and trace root, the texts of the retrieval batches that touched it."""

    def __init__(self, limit: int = BYTES_MAX) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._records: dict[Key, dict[str, list[bytes]]] = {}
        self._size = 0  # bytes of the texts kept (each root's own, one per batch)
        self._kept: dict[tuple[Key, str], None] = {}  # signed roots' records, oldest first
        self._whole: set[tuple[Key, str]] = set()  # records begun with their trace: not counted

    def note(
        self, key: Key, roots: Iterable[str], quads: list[ox.Quad], fresh: Set[str] = frozenset()
    ) -> None:
        """Keep a written batch's retrieval quads (as text) for each trace root it touched:
        its own, so that a pass sorts only the lines of the traces it signs (a batch holds
        traces in progress too: 50 agent questions at a time, a pass sorted ~2 lines a line
        it signed), and signing one again after a late message sorts that trace's alone.
        ``fresh``: the roots this batch began (nothing of them in the store before it)."""
        texts = {root: _text(group) for root, group in by_root(quads, set(roots)).items()}
        with self._lock:
            records = self._records.setdefault(key, {})
            for root, text in texts.items():
                if text is None:  # blank nodes: not the whole (the count check says so): read back
                    self._release(records.pop(root, ()))
                    self._whole.discard((key, root))
                else:
                    if root in fresh and root not in records:
                        self._whole.add((key, root))
                    records.setdefault(root, []).append(text)
                    self._size += len(text)
            if self._size > self.limit:
                self._let_go(0)  # the signed traces' records first
            if self._size > self.limit:
                self._records.clear()
                self._kept.clear()
                self._whole.clear()
                self._size = 0

    def fingerprints(self, handle: Handle, roots: list[str]) -> dict[str, Fingerprint]:
        """The fingerprint of each of ``roots`` whose record is all the store holds of it
        (what ``fingerprint_groups(seal.trace_groups(…))`` gives); the others are left out."""
        with self._lock:
            records = self._records.get(handle.key, {})
            kept = {r: list(records[r]) for r in roots if r in records}  # as of now
            whole = {r for r in kept if (handle.key, r) in self._whole}
        if not kept or not isinstance(handle.store, ox.Store):
            return {}
        entities = {r: handle.index.entities(r) for r in kept}
        counted = [r for r in entities if r not in whole]
        found = _counts(handle.store, [entities[r] for r in counted])
        counts = {r: found.get(i, 0) for i, r in enumerate(counted)}
        out = {}
        for root, uris in entities.items():
            parts = entity_parts(_sorted_lines(kept[root]), uris)
            fp = fingerprint_parts([parts[u] for u in uris if u in parts])
            if root in whole or fp.count == counts[root]:  # its lines, each once
                out[root] = fp
        return out

    def signed(self, key: Key, roots: Iterable[str]) -> None:
        """These roots were signed (or found unchanged): their records are kept for a late
        message (``SIGNED_KEPT`` of them, the oldest let go first), so that signing the trace
        again reads nothing back (``resign.only_new``)."""
        with self._lock:
            records = self._records.get(key, {})
            for root in roots:
                if root in records:
                    self._kept.pop((key, root), None)
                    self._kept[(key, root)] = None
            self._let_go(SIGNED_KEPT)

    def _let_go(self, kept: int) -> None:
        """Release the oldest signed records past ``kept`` of them. Under ``_lock``."""
        while len(self._kept) > kept:
            key, root = next(iter(self._kept))
            del self._kept[(key, root)]
            self._whole.discard((key, root))
            self._release(self._records.get(key, {}).pop(root, ()))

    def drop(self, key: Key, roots: Iterable[str]) -> None:
        """Forget these roots' records (refused, or erased)."""
        with self._lock:
            records = self._records.get(key, {})
            for root in roots:
                self._kept.pop((key, root), None)
                self._whole.discard((key, root))
                self._release(records.pop(root, ()))

    def forget(self, key: Key) -> None:
        """A dropped collection."""
        with self._lock:
            for root, texts in self._records.pop(key, {}).items():
                self._kept.pop((key, root), None)
                self._whole.discard((key, root))
                self._release(texts)

    def _release(self, texts: Iterable[bytes]) -> None:
        """A root's texts let go: no other root holds them (each has its own). Under ``_lock``."""
        self._size -= sum(len(text) for text in texts)


def by_root(quads: Iterable[ox.Quad], roots: set[str]) -> dict[str, list[ox.Quad]]:
    """The quads about each of ``roots``' entities (a writer's come subject by subject)."""
    out: dict[str, list[ox.Quad]] = {}
    known: dict[str, str | None] = {}
    last, group = None, None
    for q in quads:
        s = q.subject
        if s != last:
            last, group = s, None
            if type(s) is ox.NamedNode:
                uri = s.value
                root = known[uri] if uri in known else known.setdefault(uri, trace_root(uri))
                if root in roots:
                    group = out[root] if root in out else out.setdefault(root, [])
        if group is not None:
            group.append(q)
    return out


def _text(quads: list[ox.Quad]) -> bytes | None:
    """The quads' N-Quads text, None if it holds a blank node (RDFC-1.0 relabels those)."""
    text = ox.serialize(quads, format=ox.RdfFormat.N_QUADS) or b""
    return None if holds(text, b"_:") else text


def entity_parts(lines: list[bytes], uris: Iterable[str]) -> dict[str, bytes]:
    """Each entity's lines in sorted ``lines`` (those it has), joined: a contiguous range
    (each starts ``<iri> ``, no IRI holds ``>`` or a space), found by bisection."""
    found = {}
    for uri in uris:
        start = f"<{uri}> ".encode()
        first = bisect_left(lines, start)
        end = bisect_left(lines, start[:-1] + b"!", first)  # "!" follows " "
        if end > first:
            found[uri] = b"".join(lines[first:end])
    return found


def _sorted_lines(texts: Iterable[bytes]) -> list[bytes]:
    """The texts' distinct lines as the store keeps them, sorted."""
    lines: set[bytes] = set()
    for text in texts:
        lines.update(text.splitlines(keepends=True))
    raw = b"".join(lines)
    odd = [raw[b:e] for b, e in odd_lines(raw)]  # (one search of the text for each mark)
    if odd:
        lines.difference_update(odd)
        known = [(line, known_normal(line)) for line in odd]
        lines.update(n for _, n in known if n is not None)
        rest = [line for line, n in known if n is None]
        if rest:
            normal = ox.Store()  # in memory: keeps literals in the store's normal form
            normal.load(b"".join(rest), format=ox.RdfFormat.N_QUADS)
            lines.update((normal.dump(format=ox.RdfFormat.N_QUADS) or b"").splitlines(True))
    return sorted(lines)


def _counts(store: ox.Store, groups: Iterable[list[str]]) -> dict[int, int]:
    """How many quads each group of entities has in the retrieval graph, by the group's
    position: one query, grouped by that number (no term of the quads is decoded)."""
    # Each IRI as pyoxigraph writes it (``<…>``, checked when the node is made: no ``>``,
    # space or brace inside), never pasted from text.
    pairs = " ".join(f"({ox.NamedNode(u)} {i})" for i, us in enumerate(groups) for u in us)
    if not pairs:
        return {}
    query = (
        f"SELECT ?i (COUNT(*) AS ?n) WHERE {{ GRAPH {RETRIEVAL} {{ "
        f"VALUES (?s ?i) {{ {pairs} }} ?s ?p ?o }} }} GROUP BY ?i"
    )
    result = store.query(query)
    assert isinstance(result, ox.QuerySolutions)
    return {
        int(i.value): int(n.value)
        for row in result
        if type(i := row["i"]) is ox.Literal and type(n := row["n"]) is ox.Literal
    }
