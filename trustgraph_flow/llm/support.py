"""Which pieces of evidence best answer a question, for the offline engine's answers.

Each piece (a sentence of an excerpt, or an edge read as "S P O") is scored by the question's
content words it has, each weighted by how rare it is among the pieces (a word every piece has
tells them apart by nothing), plus a bonus when it holds what the question asks for: a name
for "who"/"where", a year for "when", a number for "how many". A piece is an answer at all only
when it has at least half the question's content words and, if the question names something
("… of Australia?"), some of those names: otherwise the evidence does not say, and the engine
says so instead of offering the nearest sentence ("the boiling point of mercury" is not
answered by a sentence about a 'point').
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from trustgraph_flow.llm.text import STOPWORDS, content_words, stem

MIN_COVERAGE = 0.5  # the share of the question's content words a supporting piece has
KIND_BONUS = 0.25
CLOSE = 0.9  # a further piece is part of the answer when it scores this share of the best
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_YEAR = re.compile(r"\b(1\d{3}|20\d{2})\b")
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)
QUESTION_WORDS = frozenset({"who", "whom", "whose", "when", "where", "which", "what", "how"})


@dataclass(frozen=True)
class Scored:
    index: int
    score: float
    words: list[str]  # the question words the piece has, in question order


def _stems(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower())}


def _names(question: str) -> list[str]:
    """The question's capitalised words after its first ('… the capital of Australia?')."""
    words = _WORD.findall(question)[1:]
    return [w.lower() for w in words if w[:1].isupper() and w.lower() not in STOPWORDS]


def _asks(question: str) -> str:
    """What kind of answer the question wants: 'name', 'year', 'number' or ''."""
    low = [w.lower() for w in _WORD.findall(question)]
    text = " ".join(low)
    if (
        "how many" in text
        or "how much" in text
        or re.search(r"\bhow (long|old|tall|far|high)", text)
    ):
        return "number"
    if "when" in low or re.search(r"\b(what|which) (year|date|century)\b", text):
        return "year"
    if {"who", "whom", "whose", "where"} & set(low):
        return "name"
    return ""


def _has_kind(kind: str, piece: str, question_stems: set[str]) -> bool:
    if kind == "number":
        return any(ch.isdigit() for ch in piece)
    if kind == "year":
        return bool(_YEAR.search(piece)) or bool(_stems(piece) & _MONTHS)
    if kind == "name":
        words = _WORD.findall(piece)
        return any(
            w[:1].isupper() and stem(w) not in question_stems and w.lower() not in STOPWORDS
            for w in words
        )
    return False


def ranked(question: str, pieces: list[str]) -> list[Scored]:
    """The pieces that support an answer to ``question``, best first (ties: input order)."""
    words = [w for w in content_words(question) if w not in QUESTION_WORDS]
    if not words or not pieces:
        return []
    piece_stems = [_stems(p) for p in pieces]
    df = {w: sum(1 for s in piece_stems if stem(w) in s) for w in words}
    weight = {w: math.log(1 + len(pieces) / (1 + df[w])) for w in words}
    total = sum(weight.values())
    names = _names(question)
    kind = _asks(question)
    question_stems = {stem(w) for w in words}
    out: list[Scored] = []
    for i, stems in enumerate(piece_stems):
        has = [w for w in words if stem(w) in stems]
        if len(has) < MIN_COVERAGE * len(words):
            continue
        if names and not any(stem(n) in stems for n in names):
            continue
        score = sum(weight[w] for w in has) / total
        if kind and _has_kind(kind, pieces[i], question_stems):
            score += KIND_BONUS
        out.append(Scored(i, score, has))
    return sorted(out, key=lambda s: (-s.score, s.index))


def best(question: str, pieces: list[str], most: int) -> list[Scored]:
    """The pieces that make the answer: the best one, and up to ``most`` in all of those
    scoring nearly as well that add a question word it lacks (no padding)."""
    found = ranked(question, pieces)
    if not found:
        return []
    chosen = [found[0]]
    covered = set(found[0].words)
    for other in found[1:]:
        if len(chosen) == most or other.score < CLOSE * found[0].score:
            break
        if not set(other.words) <= covered or other.score == found[0].score:
            chosen.append(other)
            covered |= set(other.words)
    return chosen
