"""A trace's digest from its quads read as text in pyoxigraph, not as Python objects.

Verifying reads every quad of a trace; pyoxigraph's pattern lookups build a Python ``Quad``
per quad and look up all four of its terms' texts (~5 µs a quad in RocksDB). A SPARQL
``SELECT`` over the trace's entities (``VALUES``), written out by pyoxigraph as TSV, builds
nothing in Python, and looks up as few texts as it can: each entity is given a number in
the ``VALUES`` and the row has that number, not the subject; a predicate or object of the
closed vocabulary (``namespaces.py``: the types and predicates, most of a trace's terms) is
joined with a table of their numbers on the store's own ids and the row has the number (a
literal with the same text is no IRI: it is written as the literal it is). What is left is
the objects' texts. The rows become N-Quads lines by dict lookups and joins. TSV
writes terms as N-Triples does except in three cases, handled here:

- an ``xsd:integer``, ``xsd:decimal``, ``xsd:double`` or ``xsd:boolean`` in Turtle's short
  form (``12``, ``1.5``, ``1.0E3``, ``true``): written back in full (the short forms are
  Turtle's grammar, so each names its datatype);
- a control character in a literal (U+0000–U+001F but tab, line feed and carriage return,
  and U+007F) written raw, which N-Triples escapes: the trace is read as before;
- a blank node (RDFC-1.0 relabels those): read as before.

A triple term (``<<( … )>>``) is written alike, its object short or in full as any other.
Its literals are kept as they are (a literal holding `` 12 )>>`` is no triple term's end).
A digest read so is only trusted when it equals the signed one: were a text read wrong,
it would differ, and the trace is read as before, so a verdict of change always comes from
the quads read back (and names what changed).

A long trace's verification reads all its roots (2,001 for a 20,000-step trace) in one pass:
one query per few thousand entities, and one sort per root of lines already in order but
within each entity.
Tested equal to ``fingerprint_groups`` of the quads read back (tests/unit/test_text_read.py).
"""

from __future__ import annotations

import hashlib
import re
from bisect import bisect_left
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import DC, PROV, RDF, RDFS, TG
from trustgraph_base.rdf.terms import IriTerm

XSD = "http://www.w3.org/2001/XMLSchema#"
VALUES_MAX = 5000  # entities per query
_FORM = rb"(true|false|[+-]?[0-9]+|[+-]?[0-9]*\.[0-9]+|[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+)"
# An object in Turtle's short form: a row's last field (after the empty field before it, see
# ``_rows``, and before the line's end), or a triple term's (before its `` )>>``).
_SHORT = re.compile(rb"\t\t" + _FORM + rb"\n")
# In a line with a triple term: a literal (kept as it is, whatever it holds) or a short form
# ending a triple term.
_INNER = re.compile(rb'("(?:[^"\\]|\\.)*")| ' + _FORM + rb"(?= \)>>)")
_RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _in_full(text: bytes) -> bytes:
    """``"text"^^<datatype>`` of a literal in Turtle's short form."""
    if text in (b"true", b"false"):
        kind = "boolean"
    elif b"e" in text or b"E" in text:
        kind = "double"
    elif b"." in text:
        kind = "decimal"
    else:
        kind = "integer"
    return b'"' + text + b'"^^<' + (XSD + kind).encode() + b">"


def _object(match: re.Match[bytes]) -> bytes:
    return b"\t\t" + _in_full(match.group(1)) + b"\n"


def _inner(match: re.Match[bytes]) -> bytes:
    return match.group(1) or b" " + _in_full(match.group(2))


def _triple_terms(text: bytes) -> bytes:
    """The short forms in triple terms written in full, line by line (only lines with one)."""
    out, start = [], 0
    at = text.find(b"<<(")
    while at >= 0:
        begin = text.rfind(b"\n", 0, at) + 1
        end = text.find(b"\n", at) + 1
        out += [text[start:begin], _INNER.sub(_inner, text[begin:end])]
        start = end
        at = text.find(b"<<(", end)
    return b"".join([*out, text[start:]])


def _vocabulary() -> list[str]:
    """Every IRI of the closed vocabulary (``namespaces.py``): what a trace's predicates and
    most of its objects are."""
    terms = (v for c in (TG, PROV, RDF, RDFS, DC) for v in vars(c).values())
    return sorted({t.i for t in terms if isinstance(t, IriTerm)})


VOCABULARY = _vocabulary()
# Each IRI of the vocabulary and its number, to join on: the store's own ids are compared,
# and the number, stored inline, is written without looking the IRI's text up.
_TABLE = " ".join(f"({ox.NamedNode(t)} {n})" for n, t in enumerate(VOCABULARY))
_IRI = {str(n).encode(): f"<{t}>".encode() for n, t in enumerate(VOCABULARY)}


def _rows(store: ox.Store, pairs: list[tuple[str, int]], graph: ox.NamedNode) -> list[bytes] | None:
    """The rows ``e<TAB>p<TAB>k<TAB>o`` of every quad in ``graph`` of the entities ``pairs``
    (entity, its number ``e``; at most ``VALUES_MAX``), sorted: ``p`` a vocabulary IRI's
    number or the IRI, ``k`` the number of a vocabulary IRI object (``o`` empty) or empty
    (``o`` the object); None when the text cannot stand for the quads."""
    # Each IRI as pyoxigraph writes it (checked when the node is made), never pasted text.
    block = " ".join(f"({ox.NamedNode(u)} {e})" for u, e in pairs)
    query = (
        f"SELECT ?e ?x ?k ?y WHERE {{ GRAPH {graph} {{ VALUES (?s ?e) {{ {block} }} ?s ?p ?o }} "
        f"OPTIONAL {{ VALUES (?p ?j) {{ {_TABLE} }} }} OPTIONAL {{ VALUES (?o ?k) {{ {_TABLE} }} }} "
        "BIND(COALESCE(?j, ?p) AS ?x) BIND(IF(BOUND(?k), ?unbound, ?o) AS ?y) }"
    )
    result = store.query(query)
    assert isinstance(result, ox.QuerySolutions)
    text = result.serialize(format=ox.QueryResultsFormat.TSV) or b""
    text = text[text.index(b"\n") + 1 :]  # the header
    if b"_:" in text or _RAW_CONTROL.search(text):
        return None
    text = _SHORT.sub(_object, text)
    if b"<<(" in text:
        text = _triple_terms(text)
    rows = text.splitlines()
    rows.sort()  # by entity (numbers of one width); in the order written already, mostly
    return rows


def text_digests(
    store: ox.Store, roots: dict[str, list[str]], graph: ox.NamedNode, threads: int = 1
) -> dict[str, str]:
    """The canonical digest of each root's entities' quads in ``graph`` (``roots``: root →
    its entities), read as text in one pass for all; empty when the text cannot stand for
    them. Only a digest equal to a signed one is to be trusted (see above).

    Each entity is numbered, in order of its root and then of its IRI, with numbers of one
    width: the sorted rows are then each root's in turn, its entities' in their canonical
    order, so each root's sort has only the lines within each entity to put in order. The
    entities are read in blocks of as many each, ``threads`` at a time (pyoxigraph lets
    the GIL go while it queries and writes the rows: one block's query runs while another's
    rows become lines); blocks are ranges of numbers, so their lines follow each other."""
    order = list(roots)
    groups = [sorted(set(roots[r])) for r in order]
    base = 10 ** len(str(sum(map(len, groups))))
    pairs: list[tuple[str, int]] = []
    firsts = []
    for us in groups:
        firsts.append(str(base + len(pairs)).encode())
        pairs += [(u, base + len(pairs) + n) for n, u in enumerate(us)]
    subjects = {str(e).encode(): f"<{u}>".encode() for u, e in pairs}
    tail = b" " + str(graph).encode() + b" .\n"
    count = -(-len(pairs) // VALUES_MAX)
    threads = max(1, threads)  # fewer than one reader reads on the calling thread
    count = max(1, -(-count // threads) * threads)  # blocks: of about one size, a few per thread
    size = -(-len(pairs) // count) or 1

    def read(at: int) -> tuple[list[bytes], list[bytes]] | None:
        rows = _rows(store, pairs[at : at + size], graph)
        return None if rows is None else _lines(rows, subjects, tail)

    starts = range(0, len(pairs), size)
    if threads > 1 and len(starts) > 1:
        with ThreadPoolExecutor(threads) as pool:
            blocks = list(pool.map(read, starts))
    else:
        blocks = list(map(read, starts))
    es, lines = [], []
    for block in blocks:
        if block is None:
            return {}
        es += block[0]
        lines += block[1]
    ends = [bisect_left(es, first) for first in firsts[1:]] + [len(es)]
    out, begin = {}, 0
    for root, end in zip(order, ends, strict=True):
        out[root] = hashlib.sha256(b"".join(sorted(lines[begin:end]))).hexdigest()
        begin = end
    return out


def _lines(
    rows: list[bytes], subjects: dict[bytes, bytes], tail: bytes
) -> tuple[list[bytes], list[bytes]] | None:
    """Each row's entity number and its N-Quads line (``subjects``: number → ``<iri>``)."""
    fields = b"\t".join(rows).split(b"\t") if rows else []
    if len(fields) != 4 * len(rows):
        return None
    es, xs, ks, ys = fields[0::4], fields[1::4], fields[2::4], fields[3::4]
    lines = list(
        map(
            b" ".join,
            zip(
                map(subjects.__getitem__, es),
                map(_IRI.get, xs, xs),
                map(bytes.__add__, map(_IRI.get, ks, ys), repeat(tail, len(ks))),
                strict=True,
            ),
        )
    )
    return es, lines
