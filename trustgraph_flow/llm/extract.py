"""Heuristic (subject, predicate, object) extraction for the offline engine.

Deliberately simple and deterministic: a sentence whose subject is a capitalised noun
phrase yields one edge whose predicate is the lower-case words up to the next
capitalised noun phrase (an entity), a number (a literal), or, failing those, the
first noun phrase after the verb. A predicate starts with a verb, never a preposition
("Mainz around 1400" is no relation), and an object ends where a clause begins
("worked as a goldsmith before he…" gives "goldsmith"). A passive sentence with a
lower-case subject ("The printing press was invented by Gutenberg") keeps its subject;
Markdown list markers, headings and emphasis are read past ("- **Paris** is…").
Each edge keeps the sentence it was read from (``quote``), exactly as the text has it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from trustgraph_flow.llm.extract_words import (
    ARTICLES,
    CLAUSE_WORDS,
    COPULAS,
    NOT_VERBS,
    PRONOUNS,
    VERB_PARTICLES,
)
from trustgraph_flow.llm.text import STOPWORDS, sentences

MAX_EDGES = 20
MAX_PREDICATE_WORDS = 6
MAX_OBJECT_WORDS = 3

_TOKEN = re.compile(r"\d[\d,.]*\d|\d|[^\W_]+(?:['’.-][^\W_]+)*|[^\w\s]", re.UNICODE)
_LEADING_CLAUSE = re.compile(
    r"^(?:in|on|at|after|before|during|since|by|from|until|following)\b[^,]{0,80},\s*", re.I
)
_MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+|\d{1,3}[.)]\s+|>\s*)+|[*_`]{1,3}")


@dataclass(frozen=True)
class Edge:
    """One extracted relationship; ``o_literal`` marks a value rather than an entity."""

    s: str
    p: str
    o: str
    o_literal: bool = False
    quote: str = ""  # the sentence it was read from, exactly as it is in the text

    def as_json(self) -> dict[str, str | bool]:
        return {
            "s": self.s,
            "p": self.p,
            "o": self.o,
            "o_literal": self.o_literal,
            "quote": self.quote,
        }


def _is_cap(token: str) -> bool:
    return token[:1].isupper()


def _is_word(token: str) -> bool:
    return token[:1].isalnum()


def _noun_phrase(tokens: list[str], start: int) -> int:
    """The end index of the run of capitalised words beginning at ``start``."""
    end = start
    while end < len(tokens) and _is_cap(tokens[end]):
        end += 1
    return end


def _subject(tokens: list[str], previous: str) -> tuple[str, int]:
    """The sentence's subject and where its predicate starts ('' when there is none)."""
    if not tokens:
        return "", 0
    first = tokens[0].lower()
    if first in PRONOUNS:
        return previous, 1
    start = 1 if first in ARTICLES else 0
    end = _noun_phrase(tokens, start)
    subject = " ".join(tokens[start:end])
    return ("", 0) if subject.lower() in STOPWORDS else (subject, end)


def _object_phrase(tokens: list[str], start: int) -> str:
    """Up to a few content words after a verb, stopping at punctuation or a stopword."""
    words: list[str] = []
    for token in tokens[start:]:
        low = token.lower()
        if not _is_word(token) or low in CLAUSE_WORDS or (low in STOPWORDS and words):
            break
        if token.lower() in STOPWORDS:
            continue
        words.append(token)
        if len(words) == MAX_OBJECT_WORDS:
            break
    return " ".join(words)


def _predicate(words: list[str]) -> str:
    while words and words[-1].lower() in ARTICLES:
        words = words[:-1]
    return " ".join(w.lower() for w in words)


def _edge_after(subject: str, tokens: list[str], start: int) -> Edge | None:
    """The edge whose predicate starts at ``tokens[start]``, or None."""
    if start >= len(tokens) or not _is_word(tokens[start]) or _is_cap(tokens[start]):
        return None
    if tokens[start].lower() in NOT_VERBS or tokens[start][0].isdigit():
        return None
    for i in range(start, min(len(tokens), start + MAX_PREDICATE_WORDS + 1)):
        token = tokens[i]
        if not _is_word(token) or token.lower() in CLAUSE_WORDS:
            break  # a predicate never runs into the next clause
        predicate = _predicate(tokens[start:i])
        if _is_cap(token) and predicate:
            return Edge(subject, predicate, " ".join(tokens[i : _noun_phrase(tokens, i)]))
        if token[0].isdigit() and predicate:
            unit = tokens[i + 1] if i + 1 < len(tokens) and tokens[i + 1].isalpha() else ""
            value = f"{token} {unit}" if unit and unit.lower() not in STOPWORDS else token
            return Edge(subject, predicate, value, o_literal=True)
    return _fallback_edge(subject, tokens, start)


def _fallback_edge(subject: str, tokens: list[str], start: int) -> Edge | None:
    """'X is a physicist' / 'X discovered polonium': a lower-case object."""
    verb = [tokens[start]]
    nxt = start + 1
    if (
        tokens[start].lower() not in COPULAS
        and nxt < len(tokens)
        and tokens[nxt].lower() in VERB_PARTICLES
    ):
        verb.append(tokens[nxt])  # "worked as", "lives in"
        nxt += 1
    if nxt < len(tokens) and tokens[nxt].lower() in ARTICLES:
        if tokens[start].lower() in COPULAS:
            verb.append(tokens[nxt])  # "is a physicist" keeps its article in the predicate
        nxt += 1
    obj = _object_phrase(tokens, nxt)
    if not obj:
        return None
    return Edge(subject, " ".join(w.lower() for w in verb), obj)


def _passive(tokens: list[str]) -> Edge | None:
    """'The printing press was invented by Gutenberg': a lower-case subject of a passive."""
    start = 1 if tokens and tokens[0].lower() in ARTICLES else 0
    for i in range(start + 1, min(len(tokens) - 4, start + 4) + 1):  # i + 3 is the agent
        verb, by = tokens[i + 1], tokens[i + 2]
        if tokens[i].lower() in COPULAS and by.lower() == "by" and _is_cap(tokens[i + 3]):
            subject = tokens[start:i]
            if not all(_is_word(w) and w.lower() not in STOPWORDS for w in subject):
                return None
            if not _is_word(verb) or verb.lower() in STOPWORDS:
                return None
            agent = " ".join(tokens[i + 3 : _noun_phrase(tokens, i + 3)])
            return Edge(" ".join(subject), f"{tokens[i].lower()} {verb.lower()} by", agent)
    return None


def extract_edges(text: str, limit: int = MAX_EDGES) -> list[Edge]:
    """Edges found in ``text``, at most ``limit``, without duplicates, in text order."""
    found: dict[tuple[str, str, str], Edge] = {}
    previous = ""
    for sentence in sentences(text):
        plain = _MARKUP.sub("", sentence.strip())
        body = _LEADING_CLAUSE.sub("", plain.strip().rstrip(".!?;:"))
        tokens = _TOKEN.findall(body)
        subject, start = _subject(tokens, previous)
        if not subject:
            passive = _passive(tokens)
            if passive is not None:
                found.setdefault(
                    (passive.s, passive.p, passive.o), replace(passive, quote=sentence)
                )
            continue
        previous = subject
        edge = _edge_after(subject, tokens, start)
        if edge is not None and edge.o.lower() != subject.lower():
            found.setdefault((edge.s, edge.p, edge.o), replace(edge, quote=sentence))
        if len(found) >= limit:
            break
    return list(found.values())
