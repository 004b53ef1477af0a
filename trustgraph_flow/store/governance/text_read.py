"""A trace's digest from its quads read as text in pyoxigraph, not as Python objects.

Verifying reads every quad of a trace; pyoxigraph's pattern lookups build a Python ``Quad``
per quad and look up all four of its terms' texts (~5 µs a quad in RocksDB). A SPARQL
``SELECT ?s ?p ?o`` over the trace's entities (``VALUES``), written out by pyoxigraph as
TSV, decodes three terms and builds nothing in Python; its rows become N-Quads lines with
two byte replacements (tabs between terms; the graph's name before each line's end). TSV
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
one query per few thousand entities, one sort, a few byte searches per entity.
Tested equal to ``fingerprint_groups`` of the quads read back (tests/unit/test_text_read.py).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

import pyoxigraph as ox

XSD = "http://www.w3.org/2001/XMLSchema#"
VALUES_MAX = 5000  # entities per query
_FORM = rb"(true|false|[+-]?[0-9]+|[+-]?[0-9]*\.[0-9]+|[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+)"
# An object in Turtle's short form: a row's last field (after a tab, before the line's end),
# or a triple term's (before its `` )>>``).
_SHORT = re.compile(rb"\t" + _FORM + rb"\n")
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
    return b"\t" + _in_full(match.group(1)) + b"\n"


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


def _tagged_lines(store: ox.Store, roots: list[list[str]], graph: ox.NamedNode) -> bytes | None:
    """The canonical N-Quads lines of every quad of each group's entities in ``graph``, each
    after its group's number and a space (``0 <s> <p> <o> <g> .``), each once, sorted, each
    after a line break; None when the text cannot stand for the quads."""
    tail = b" " + str(graph).encode() + b" .\n"
    pairs = [(u, i) for i, us in enumerate(roots) for u in us]
    lines: set[bytes] = set()
    for k in range(0, len(pairs), VALUES_MAX):
        # Each IRI as pyoxigraph writes it (checked when the node is made), never pasted text.
        block = " ".join(f"({ox.NamedNode(u)} {i})" for u, i in pairs[k : k + VALUES_MAX])
        query = (
            f"SELECT ?r ?s ?p ?o WHERE {{ GRAPH {graph} {{ VALUES (?s ?r) {{ {block} }} "
            "?s ?p ?o } }"
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
        lines.update(text.replace(b"\t", b" ").replace(b"\n", tail).splitlines(keepends=True))
    return b"\n" + b"".join(sorted(lines))


def lines_of(blob: bytes, start: bytes, at: int) -> tuple[bytes, int]:
    """The lines of sorted ``blob`` after ``at`` that begin with ``start`` (which holds the
    line break before them; sorted, they are contiguous), joined, and where they end."""
    first = blob.find(start, at)
    if first < 0:
        return b"", at
    end = first
    while blob.startswith(start, end):
        end = blob.find(b"\n", end + 1)
    return blob[first + 1 : end + 1], end


def entity_parts(blob: bytes, uris: Iterable[str]) -> dict[str, bytes]:
    """Each entity's lines in sorted ``blob`` (those it has), found in sorted order: one
    pass over the blob, a few byte searches per entity."""
    found: dict[str, bytes] = {}
    at = 0
    for token, uri in sorted((f"\n<{u}> ".encode(), u) for u in set(uris)):
        part, end = lines_of(blob, token, at)
        if part:
            found[uri], at = part, end
    return found


def text_digests(
    store: ox.Store, roots: dict[str, list[str]], graph: ox.NamedNode
) -> dict[str, str]:
    """The canonical digest of each root's entities' quads in ``graph`` (``roots``: root →
    its entities), read as text in one pass for all; empty when the text cannot stand for
    them. Only a digest equal to a signed one is to be trusted (see above). Sorted, each
    root's lines are one run (they start with its number and a space): one search each."""
    order = list(roots)
    blob = _tagged_lines(store, [roots[r] for r in order], graph)
    if blob is None:
        return {}
    starts, at = [], 0
    for i in sorted(range(len(order)), key=lambda i: f"{i} ".encode()):
        found = blob.find(f"\n{i} ".encode(), at)
        if found >= 0:
            starts.append((found, i))
            at = found + 1
    out = {root: hashlib.sha256(b"").hexdigest() for root in order}
    ends = [s for s, _ in starts[1:]] + [len(blob)] * bool(starts)
    for (begin, i), end in zip(starts, ends, strict=True):
        body = blob[begin:end].replace(f"\n{i} ".encode(), b"\n")[1:]
        out[order[i]] = hashlib.sha256(body if body.endswith(b"\n") else body + b"\n").hexdigest()
    return out
