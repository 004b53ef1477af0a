"""Whether an answer addresses its question: the offline engine's relevance check of the
answer itself (docs/rag.md, "Verification and abstention"), a heuristic like the claim check.

The claim check asks whether each sentence of the answer is stated by the evidence it cites,
and ``relevant`` whether that evidence speaks of the question; neither asks whether the
sentence *answers* it. On a new user's manual, "Who wrote bzip2?" was answered "bzip2 will
decline to write compressed output to a terminal": every word of it in its evidence, and the
evidence about bzip2, but no one named. So the answer must give the kind of thing the question
asks for (``support.asks``, the kinds the offline answerer prefers too), in one of its
sentences at least:

- *who* / *where*: a name the question does not hold (``support.has_kind``), or a content
  word after ``by`` the question does not hold ("owned by group mail", "by this user"); for
  *where*, also a place: a content word the question does not hold after a preposition of
  place, directly or after an article, and not opening the sentence ("lives in the forest",
  "hired at the pier"; not "In this case, …");
- *when*: a year or a month (``has_kind``), or a number, a day of the week or a season;
- *how many / much / long / high …*: a number, in digits or in words (a word that starts
  with a digit: not "BZ2_bzDecompress").

A question of another shape (*what*, *which*, *how* alone) is not checked here: the answer
need not repeat what kind of thing is asked for ("Which animal…?" — "The Skarra vole…"), and
words cannot tell an algorithm from a file name.
"""

from __future__ import annotations

from collections.abc import Sequence

from trustgraph_flow.llm.support import ARTICLES, asks, has_kind
from trustgraph_flow.llm.text import STOPWORDS, content_words, stem, words
from trustgraph_flow.verify.heuristic import NUMBER_WORDS

LARGE_NUMBERS = frozenset(
    "thirty forty fifty sixty seventy eighty ninety hundred thousand million billion "
    "dozen half".split()
)
TIMES = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday spring summer autumn winter "
    "century decade daily weekly monthly yearly annually".split()
)
AGENT_MARKS = frozenset({"by"})
PLACE_MARKS = frozenset(
    "in at on near under inside outside beside behind above below within across along "
    "around beyond".split()
)
WHY = {  # why an answer does not address a question of each kind
    "name": "the question asks who or where, and no sentence of the answer names anyone or "
    "anything the question does not",
    "year": "the question asks when, and no sentence of the answer says a time",
    "number": "the question asks for an amount, and no sentence of the answer gives a number",
}


def _numbered(low: list[str]) -> bool:
    """A number: a word that starts with a digit ("212", "900k", "1.0.8"; not "BZ2"), or a
    number word."""
    return any(w[:1].isdigit() or w in NUMBER_WORDS or w in LARGE_NUMBERS for w in low)


def _agents(low: list[str]) -> list[str]:
    """The first content word after each ``by`` ("owned by this user": user)."""
    out = []
    for i, word in enumerate(low):
        if word in AGENT_MARKS:
            out += [w for w in low[i + 1 : i + 3] if w not in STOPWORDS][:1]
    return out


def _places(low: list[str]) -> list[str]:
    """The content word after each preposition of place that does not open the sentence,
    directly or after an article ("in the forest": forest; not "in this case")."""
    out = []
    for i, word in enumerate(low[1:], start=1):
        if word in PLACE_MARKS:
            at = i + 1 + (i + 1 < len(low) and low[i + 1] in ARTICLES)
            if at < len(low) and low[at] not in STOPWORDS:
                out.append(low[at])
    return out


def gives(kind: str, claim: str, asked: set[str], where: bool = False) -> bool:
    """Whether ``claim`` gives the ``kind`` of answer asked for (``asked``: the stems of the
    question's content words; ``where``: the question asks where, so a place answers)."""
    low = [w.lower() for w in words(claim)]
    if kind == "number":
        return _numbered(low)
    if kind == "year":
        return has_kind(kind, claim, asked) or _numbered(low) or bool(TIMES & set(low))
    if kind == "name":
        marked = _agents(low) + (_places(low) if where else [])
        return has_kind(kind, claim, asked) or any(stem(w) not in asked for w in marked)
    return True


def unaddressed(question: str, claims: Sequence[str]) -> str | None:
    """Why no sentence of the answer addresses ``question`` (None: one does, or the question
    is of a shape not checked)."""
    kind = asks(question)
    said = [c for c in claims if c.strip()]
    if not kind or not said:
        return None
    asked = {stem(w) for w in content_words(question)}
    where = "where" in {w.lower() for w in words(question)}
    if any(gives(kind, c, asked, where) for c in said):
        return None
    return WHY[kind]
