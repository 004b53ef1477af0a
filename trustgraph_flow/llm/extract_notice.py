"""A copyright notice: who holds the copyright, and since when.

Licences, manuals and source files open with a line such as "Copyright (C) 2007 Free Software
Foundation, Inc." or "Copyright (c) The Regents of the University of California." It is no
sentence (no verb), so the clause reader states nothing; read as a notice it says the holder
holds the copyright, of those years. A template's placeholder ("Copyright (C) <year> <name of
author>", "Copyright (c) YEAR YOUR NAME") names no one and states nothing, nor does a label
("Copyright Copyright notice", a field's name and its description).
"""

from __future__ import annotations

import re

from trustgraph_flow.llm.extract_words import JUNK

Fact = tuple[str, str, str, bool]
_NOTICE = re.compile(
    r"^\s*Copyright\s*(?:\([cC]\)|©)?\s*"
    r"(?P<years>\d{4}(?:\s*[-–,]\s*\d{4})*)?,?\s*"
    r"(?:(?:The|the)\s+)?"
    r"(?P<holder>[A-Z][\w&'’-]*(?:\s+(?:of|of\s+the|and|for|&)?\s*[A-Z](?:\.|[\w&'’-]*))*)",
)
# "Thomas G. Lane": an initial and its full stop are part of the name
_CASED = re.compile(
    r"[A-Z][\w&'’-]*(?:\s+(?:(?:of|of the|and|for|&)\s+)?[A-Z](?:\.(?=\s+[A-Z])|[\w&'’-]*))*"
)


def is_notice(sentence: str) -> bool:
    """Whether the sentence opens as a copyright notice, names a holder or not: no subject
    of its own, so 'It' in the next sentence does not stand for 'Copyright'."""
    return _NOTICE.match(" ".join(sentence.split())) is not None


def notice_facts(sentence: str) -> list[Fact]:
    """The facts of a copyright notice at the sentence's start (none if it is not one)."""
    found = _NOTICE.match(" ".join(sentence.split()))
    if found is None:
        return []
    named = _CASED.match(found.group("holder"))  # the holder's name is written in capitals
    holder = named.group() if named else ""
    words = holder.split()  # "Thomas G. Lane", "AT&T Labs"; not "YEAR YOUR NAME"
    placeholder = all(w.isupper() and len(w) > 3 for w in words)
    if not holder or placeholder or any(w.lower() in JUNK | {"copyright"} for w in words):
        return []  # "YEAR YOUR NAME": a template's placeholder; "Copyright notice", a label
    facts: list[Fact] = [(holder, "holds", "copyright", False)]
    if found.group("years"):
        facts.append((holder, "holds copyright dated", found.group("years"), True))
    return facts
