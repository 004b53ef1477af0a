"""Heuristic (subject, predicate, object) extraction for the offline engine.

Deliberately simple and deterministic. A sentence's subject is a capitalised noun phrase (or
a list of them: "Hale, Mott and Rook founded…" gives one edge each); an apposition after it
states what the subject is ("Casimir Rook, an engineer from Leeds, designed…"); the clause
from its verb is read by ``extract_clause`` (passive voice as the agent's act, lists of
objects, a year). A pronoun stands for the previous sentence's subject; a clause joined by
"and" is read too. Junk is dropped: a pronoun or an adverb as subject or object, a predicate
that does not start with a verb, an object that repeats its subject. Sentences are read as
``prose.prose_spans`` finds them, so hard-wrapped text (a book, a licence) is read whole.
Each edge keeps the sentence it was read from (``quote``), exactly as the text has it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trustgraph_flow.llm.extract_clause import (
    Read,
    active_facts,
    is_cap,
    is_word,
    noun_phrase,
    passive_facts,
    phrase,
)
from trustgraph_flow.llm.extract_verbs import ADVERBS, NEGATIONS, is_participle, looks_verb
from trustgraph_flow.llm.extract_words import ARTICLES, COPULAS, JUNK, PRONOUNS
from trustgraph_flow.llm.prose import prose_spans
from trustgraph_flow.llm.text import STOPWORDS

MAX_EDGES = 20
MAX_APPOSITION = 10  # tokens between an apposition's commas
_TOKEN = re.compile(r"\d[\d,.]*\d|\d|[^\W_]+(?:['’.-][^\W_]+)*|[^\w\s]", re.UNICODE)
_LEADING_CLAUSE = re.compile(
    r"^(?:in|on|at|after|before|during|since|by|from|until|following)\b[^,]{0,80},\s*", re.I
)
_MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|[-*+•]\s+|\d{1,3}[.)]\s+|>\s*)+|[*_`]{1,3}")
Fact = tuple[str, str, str, bool]


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


def _subjects(tokens: list[str], previous: list[str]) -> tuple[list[str], int]:
    """The sentence's subjects and where what follows them starts ([] when there is none)."""
    if not tokens:
        return [], 0
    if tokens[0].lower() in PRONOUNS:
        return previous, 1
    start = 1 if tokens[0].lower() in ARTICLES else 0
    end = noun_phrase(tokens, start)
    found = [phrase(tokens, start, end)] if end > start else []
    while found:
        j = end + (end < len(tokens) and tokens[end] == ",")
        j += j < len(tokens) and tokens[j].lower() == "and"
        j += j < len(tokens) and tokens[j].lower() in ARTICLES
        k = noun_phrase(tokens, j) if j > end else j
        if k == j:
            break
        found.append(phrase(tokens, j, k))
        end = k
    if not found or found[0].lower() in STOPWORDS:
        return [], 0
    return found, end


def _apposition(subject: str, tokens: list[str], start: int) -> tuple[list[Fact], int]:
    """', an engineer from Leeds,' / ', who was born in Leeds,' after a subject: what it
    states, and where the main clause goes on (``start`` when there is none)."""
    if start >= len(tokens) or tokens[start] != ",":
        return [], start
    stop = next(
        (
            i
            for i in range(start + 1, min(len(tokens), start + MAX_APPOSITION + 2))
            if tokens[i] == ","
        ),
        None,
    )
    if stop is None or stop == start + 1 or stop + 1 >= len(tokens):
        return [], start
    body = tokens[start + 1 : stop]
    if not all(is_word(t) for t in body) or is_cap(body[0]):
        return [], start
    if body[0].lower() in ("who", "which"):
        read = active_facts(subject, body, 1)
    elif body[0].lower() in ARTICLES:
        read = active_facts(subject, ["is", *body], 0)
    else:
        return [], start
    return (read.facts if read else []), stop + 1


def _skip_adverbs(tokens: list[str], i: int) -> int:
    while i < len(tokens) and tokens[i].lower() in ADVERBS and tokens[i].lower() not in NEGATIONS:
        i += 1
    return i


def _clause(subjects: list[str], tokens: list[str], start: int, depth: int = 0) -> list[Fact]:
    """The facts of the clause after ``subjects``, and of one joined to it by 'and'."""
    start = _skip_adverbs(tokens, start)
    facts: list[Fact] = []
    end = start
    for subject in subjects:
        read = active_facts(subject, tokens, start)
        if read is None:
            return facts
        facts += read.facts
        end = read.end
    if depth < 2:
        facts += _joined(subjects, tokens, end, depth)
    return facts


def _joined(subjects: list[str], tokens: list[str], end: int, depth: int) -> list[Fact]:
    """'…, and Hale built the mill' / '… and later designed the viaduct' / '…, and he…'."""
    j = end + (end < len(tokens) and tokens[end] == ",")
    if j >= len(tokens) or tokens[j].lower() != "and" or j + 1 >= len(tokens):
        return []
    j += 1
    if tokens[j].lower() in PRONOUNS:
        return _clause(subjects, tokens, j + 1, depth + 1)
    if looks_verb(tokens[_skip_adverbs(tokens, j)]):
        return _clause(subjects, tokens, j, depth + 1)
    k = noun_phrase(tokens, j + (tokens[j].lower() in ARTICLES))
    if k > j and k < len(tokens) and looks_verb(tokens[_skip_adverbs(tokens, k)]):
        new = [phrase(tokens, j + (tokens[j].lower() in ARTICLES), k)]
        return _clause(new, tokens, k, depth + 1)
    return []


def _lower_passive(tokens: list[str]) -> list[Fact]:
    """'The printing press was invented by Gutenberg': a lower-case subject of a passive."""
    start = 1 if tokens and tokens[0].lower() in ARTICLES else 0
    for i in range(start + 1, min(len(tokens), start + 5)):
        if tokens[i].lower() in COPULAS | {"has", "have", "had"}:
            subject = tokens[start:i]
            if not all(is_word(w) and w.lower() not in STOPWORDS for w in subject):
                return []
            read = passive_facts(" ".join(subject), tokens, i)
            return read.facts if isinstance(read, Read) else []
    return []


def _words(label: str) -> set[str]:
    return {w.lower() for w in label.split()}


def clean(s: str, p: str, o: str, literal: bool) -> bool:
    """Whether a fact is worth an edge: no pronoun or adverb as subject or object, a
    predicate starting with a verb, an object that does not repeat its subject, no lone
    participle as an object ('Chlorine → is → added')."""
    if not (s and p and o) or s.lower() in JUNK or o.lower() in JUNK:
        return False
    first = p.split()[0]
    if not (looks_verb(first) or first in NEGATIONS):
        return False
    if literal:
        return True
    if _words(o) <= _words(s):
        return False
    lone = " " not in o and not is_cap(o)
    return not (lone and (o.lower().endswith("ly") or (p in COPULAS and is_participle(o))))


def _facts(tokens: list[str], previous: list[str]) -> tuple[list[Fact], list[str]]:
    subjects, start = _subjects(tokens, previous)
    if not subjects:
        return _lower_passive(tokens), previous
    facts: list[Fact] = []
    if len(subjects) == 1:
        facts, start = _apposition(subjects[0], tokens, start)
    return facts + _clause(subjects, tokens, start), subjects


def extract_edges(text: str, limit: int = MAX_EDGES) -> list[Edge]:
    """Edges found in ``text``, at most ``limit``, without duplicates, in text order."""
    found: dict[tuple[str, str, str], Edge] = {}
    previous: list[str] = []
    for a, b in prose_spans(text):
        sentence = text[a:b]
        plain = _MARKUP.sub("", " ".join(sentence.split()))
        body = _LEADING_CLAUSE.sub("", plain.strip().rstrip(".!?;:"))
        facts, previous = _facts(_TOKEN.findall(body), previous)
        for s, p, o, literal in facts:
            if clean(s, p, o, literal):
                found.setdefault((s, p, o), Edge(s, p, o, literal, sentence))
        if len(found) >= limit:
            break
    return list(found.values())[:limit]
