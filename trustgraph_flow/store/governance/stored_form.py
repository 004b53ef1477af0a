"""The form an embedded store keeps an N-Quads line in, found without a store for the
forms our writers make (``written.py`` signs from the writer's text, and pyoxigraph keeps
some typed literals in a normal form: ``"1.50"^^xsd:decimal`` as ``"1.5"``, a time's
``.120Z`` as ``.12Z``)."""

from __future__ import annotations

import calendar
import re

_TYPED, _TRIPLE = b'"^^<', b"<<("  # a line with a typed literal, a triple term (or in a literal)

_XSD = rb"<http://www\.w3\.org/2001/XMLSchema#"
_TYPED_LINE = re.compile(  # a whole line: IRIs, the object a typed literal of these types
    rb'(<[^<>" ]*> <[^<>" ]*> ")([-0-9.:TZ]*)("\^\^' + _XSD + rb"(dateTime|integer|decimal)> "
    rb'<[^<>" ]*> \.\n)'
)
_DATE_TIME = re.compile(
    rb"([1-9]\d{3})-(\d\d)-(\d\d)T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,18})?Z"
)
_NUMBER = {  # canonical already (pyoxigraph keeps them as they are)
    b"integer": re.compile(rb"0|-?[1-9]\d{0,17}"),
    b"decimal": re.compile(rb"0|-?[1-9]\d{0,17}(?:\.\d{0,17}[1-9])?|-?0\.\d{0,17}[1-9]"),
}


def known_normal(line: bytes) -> bytes | None:
    """The store's normal form of a line whose literal is one the writers make (an
    ``xsd:dateTime`` in UTC, an ``xsd:integer`` or ``xsd:decimal`` in canonical form) or
    whose triple term holds IRIs alone (as written: a store keeps an IRI as it is), found
    without a store: a UTC time loses its fraction's trailing zeros when its date exists
    (``tests/unit/test_store_signing_written.py`` checks this against pyoxigraph). None
    for any other line (the store in memory gives its form)."""
    m = _TYPED_LINE.fullmatch(line)
    if m is None:
        # A triple term of IRIs alone (a retrieved chunk's reifier): nothing to normalise.
        return line if _TRIPLE in line and b'"' not in line and b"_:" not in line else None
    head, lexical, tail = m.group(1, 2, 3)
    if m[4] != b"dateTime":
        return line if _NUMBER[m[4]].fullmatch(lexical) else None
    t = _DATE_TIME.fullmatch(lexical)
    if t is None or not 1 <= int(t[2]) <= 12:
        return None
    if not 1 <= int(t[3]) <= calendar.monthrange(int(t[1]), int(t[2]))[1]:
        return None  # a date that does not exist (pyoxigraph keeps it as written)
    if not t[4]:
        return line
    whole = lexical[: t.start(4)] + t[4].rstrip(b"0").rstrip(b".") + b"Z"
    return head + whole + tail


def odd_lines(text: bytes) -> list[tuple[int, int]]:
    """Where the lines with a typed literal or a triple term are (or with ``"^^<`` or ``<<(``
    in a literal, which the memory store gives back as they were), each once."""
    spans: set[tuple[int, int]] = set()
    # Each mark found by its rarest byte (a one-byte search is ~100 times faster than one
    # for ``"^^<`` or ``<<(``, whose ``"`` and ``<`` begin every literal and IRI).
    for mark, k in ((_TYPED, 1), (_TRIPLE, 2)):
        at = text.find(mark[k : k + 1])
        while at >= 0:
            start = at - k
            if start < 0 or not text.startswith(mark, start):
                at = text.find(mark[k : k + 1], at + 1)
                continue
            end = text.find(b"\n", at) + 1
            spans.add((text.rfind(b"\n", 0, start) + 1, end))
            at = text.find(mark[k : k + 1], end)
    return sorted(spans)
