"""Labels that name nothing: an edge whose subject or object is one is junk, whoever
extracted it (docs/llm.md, ``extract-edges``; docs/rag.md, the focus).

``hollow`` is the test GraphRAG's focus applies to any edge, the offline extractor's or an
LLM's: a label made only of function words, pronouns and their contractions ("against",
"I’ve", "As I", "it", "like"), or a subject that is a number alone, written in figures or
in words ("Four", "Various"). ``loose`` adds what only the
offline extractor's reading leaves: a label opening with a subordinating word ("If
BZ2_bzWriteClose", "Both M") or ending with a function word ("BZ2_bzRead When", "Sed
cannot").
"""

from __future__ import annotations

import re

from trustgraph_flow.llm.extract_words import CLAUSE_WORDS, JUNK, PREPOSITIONS
from trustgraph_flow.llm.text import FUNCTION_WORDS

EMPTY = (
    FUNCTION_WORDS
    | JUNK
    | CLAUSE_WORDS
    | PREPOSITIONS
    | {"cannot", "ca", "wo", "sha", "like", "plus"}
)
# A count or a quantity says how many, not what: "Four → hyphens → separate" ("Four hyphens
# separate the two sections"), "Various → packages offer → …".
COUNTS = frozenset(
    """two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty
    hundred hundreds thousand thousands dozen dozens various multiple numerous""".split()
)
SUBJECT_EMPTY = COUNTS | EMPTY  # made once: a union per word cost ~14 µs a subject
OPENERS = frozenset(
    """if as so when while because although though unless since until whereas with against
    both either neither i you we he she it they""".split()
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_NUMBER = re.compile(r"[\d.,/–-]+")


def _base(word: str) -> str:
    """'I’ve' → 'i', 'Doesn't' → 'does', 'can't' → 'ca' (the word before a contraction);
    an acronym is itself ('US', 'IT', 'AT&T' are no function words)."""
    if len(word) > 1 and word.isupper():
        return word
    low = word.lower().replace("’", "'")
    if low.endswith("n't"):
        return low[:-3]
    return low.split("'")[0]


def hollow(label: str, subject: bool = False) -> bool:
    """Whether ``label`` names nothing: only function words and pronouns, or (a subject) a
    number or a count alone."""
    words = label.split()
    if not words:
        return True
    if subject and (
        _NUMBER.fullmatch(label.strip()) or all(_base(w) in SUBJECT_EMPTY for w in words)
    ):
        return True
    if not _WORD.search(label):
        return False  # a symbol ("&", "$") is something
    return all(_base(w) in EMPTY or not _WORD.search(w) for w in words)


def loose(label: str) -> bool:
    """Whether the extractor's ``label`` is hollow, has a clause's word at an end, or opens
    with a negated auxiliary ("Doesn't handle multiple", a list item with no subject)."""
    words = label.split()
    negated = words[0].lower().replace("’", "'").endswith("n't")
    return hollow(label) or negated or _base(words[0]) in OPENERS or _base(words[-1]) in EMPTY
