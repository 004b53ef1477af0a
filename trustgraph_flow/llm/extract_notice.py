"""A copyright notice: who holds the copyright, and since when.

Licences, manuals and source files open with a line such as "Copyright (C) 2007 Free Software
Foundation, Inc." or "Copyright (c) The Regents of the University of California." It is no
sentence (no verb), so the clause reader states nothing; read as a notice it says the holder
holds the copyright, of those years. A template's placeholder ("Copyright (C) <year> <name of
author>", "Copyright (c) YEAR YOUR NAME") names no one and states nothing.
"""

from __future__ import annotations

import re

from trustgraph_flow.llm.extract_words import JUNK

Fact = tuple[str, str, str, bool]
_NOTICE = re.compile(
    r"^\s*Copyright\s*(?:\([cC]\)|©)?\s*"
    r"(?P<years>\d{4}(?:\s*[-–,]\s*\d{4})*)?,?\s*"
    r"(?:(?:The|the)\s+)?"
    r"(?P<holder>[A-Z][\w&'’-]*(?:\s+(?:of|of\s+the|and|for|&)?\s*[A-Z][\w&'’-]*)*)",
)
_CASED = re.compile(r"[A-Z][\w&'’-]*(?:\s+(?:(?:of|of the|and|for|&)\s+)?[A-Z][\w&'’-]*)*")


def notice_facts(sentence: str) -> list[Fact]:
    """The facts of a copyright notice at the sentence's start (none if it is not one)."""
    found = _NOTICE.match(" ".join(sentence.split()))
    if found is None:
        return []
    named = _CASED.match(found.group("holder"))  # the holder's name is written in capitals
    holder = named.group() if named else ""
    if not holder or any(w.lower() in JUNK or w.isupper() for w in holder.split()):
        return []  # "YEAR YOUR NAME": a template's placeholder
    facts: list[Fact] = [(holder, "holds", "copyright", False)]
    if found.group("years"):
        facts.append((holder, "holds copyright dated", found.group("years"), True))
    return facts
