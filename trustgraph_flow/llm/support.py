"""Which pieces of evidence best answer a question, for the offline engine's answers.

A piece is a sentence of an excerpt (or an edge read as "S P O"). Each of the question's
content words earns it credit: 1 when the sentence has it — a word of a name the question
uses only when the sentence has that whole name ("Marrowby" in "the Marrowby Society" earns
0.3: another thing); 0.6 when only the sentence's context has it (a sentence opening with
"It", "She" or "The bridge" is read with the sentences before it in its paragraph). The
score sums the credits weighted by each word's rarity among the pieces, plus a bonus when
the sentence holds what the question asks for: a name for "who"/"where", a year for "when",
a number for "how many", what a thing is for "what kind of licence is…" ("is a copyleft
licence"). A piece is an answer at all only when its credits reach half the
question's words, the question's names are in its excerpt and its numbers in it or its
context ("version 3 of the licence" is not answered by what any version may do): otherwise
the evidence does not say, and the engine says so instead of offering the nearest sentence ("the boiling point
of mercury" is not answered by a sentence about a 'point'). When a *who made it* question
(``agency.act``) has pieces saying who did it, only they answer; one wording the act needs the
question's names alone ("Who wrote the paper on CRC?": a byline's edge, not "This paper
describes…"), one whose only sign is a *by* phrase every key ("Who wrote the GNU Make
manual?" is not answered by "GNU Make is copyright by the Free Software Foundation").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from trustgraph_flow.llm.agency import act, relation
from trustgraph_flow.llm.dates import MONTHS
from trustgraph_flow.llm.excerpts import Piece
from trustgraph_flow.llm.extract_verbs import looks_verb
from trustgraph_flow.llm.prose import marked
from trustgraph_flow.llm.question_keys import (
    Evidence,
    Key,
    distinct_enough,
    name_runs,
    question_keys,
    runs_of,
    same_name,
    stems_of,
)
from trustgraph_flow.llm.text import STOPWORDS, content_words, sentences, stem, words

MIN_COVERAGE = 0.5  # credits a supporting piece needs, as a share of the question's words
CONTEXT_CREDIT = 0.6
OTHER_NAME_CREDIT = 0.3
KIND_BONUS = 0.25
CLOSE = 0.9  # a further piece is part of the answer when it scores this share of the best
_USAGE = re.compile(r"[\[\]<>]")  # a synopsis's options: 'bzcat [ -s ] [ filenames ...'
_YEAR = re.compile(r"\b(1\d{3}|20\d{2})\b")
KIND_WORDS = frozenset({"kind", "type", "sort"})
KIND_REACH = 3  # words after 'is a' that may name the kind ('is a free, copyleft license')
COPULAS = frozenset({"is", "are", "was", "were"})
ARTICLES = frozenset({"a", "an", "the"})
QUESTION_WORDS = frozenset({"who", "whom", "whose", "when", "where", "which", "what", "how"})
PLACE_MARKS = frozenset(
    "in at on near under inside outside beside behind above below within across along "
    "around beyond".split()
)


@dataclass(frozen=True)
class Scored:
    index: int
    score: float
    words: list[str]  # the question words the piece itself has, in question order
    prose: bool = False  # it reads as a sentence (``reads_as_sentence``)
    acts: bool = False  # it says who did what a *who* question asks (``agency.relates``)


def asks(question: str) -> str:
    """What kind of answer the question wants: 'name', 'year', 'number' or ''."""
    low = [w.lower() for w in words(question)]
    text = " ".join(low)
    if re.search(r"\bhow (many|much|long|old|tall|far|high|big|large)\b", text):
        return "number"
    if "when" in low or re.search(r"\b(what|which) (year|date|century)\b", text):
        return "year"
    return "name" if {"who", "whom", "whose", "where"} & set(low) else ""


def _low(text: str) -> list[str]:
    return [w.lower() for w in words(text)]


def places(low: list[str]) -> list[str]:
    """The content word after each preposition of place that does not open the sentence,
    directly or after an article ("in the forest": forest; not "in this case", nor an act:
    "in conveying all material")."""
    out = []
    for i, word in enumerate(low[1:], start=1):
        if word in PLACE_MARKS:
            article = i + 1 < len(low) and low[i + 1] in ARTICLES
            at = i + 1 + article
            if at < len(low) and low[at] not in STOPWORDS:
                if article or not low[at].endswith("ing"):  # "in conveying": an act
                    out.append(low[at])
    return out


def has_kind(kind: str, text: str, question: set[str], where: bool = False) -> bool:
    """Whether ``text`` holds the kind of answer asked for (``where``: a place after a
    preposition of place answers too: 'is provided within build/cmake')."""
    if kind == "name" and where and any(stem(w) not in question for w in places(_low(text))):
        return True
    if kind == "number":
        return any(ch.isdigit() for ch in text)
    if kind == "year":
        return bool(_YEAR.search(text)) or bool({w.lower() for w in words(text)} & MONTHS)
    if kind == "name":
        return any(stem(w) not in question for run in name_runs(text) for w in run)
    return False


def _kind_noun(question: str) -> str:
    """The noun a 'what kind (type, sort) of N is…' question asks about ('' if it does not)."""
    low = [w.lower() for w in words(question)]
    for i in range(len(low) - 2):
        if low[i] in KIND_WORDS and low[i + 1] == "of":
            return stem(low[i + 2])
    return ""


def _states_kind(text: str, noun: str) -> bool:
    """Whether ``text`` says what something is, as a ``noun``: 'is a copyleft license'."""
    low = [w.lower() for w in words(text)]
    for i, word in enumerate(low[:-1]):
        if word in COPULAS and low[i + 1] in ARTICLES:
            return noun in {stem(w) for w in low[i + 2 : i + 2 + KIND_REACH]}
    return False


def _sentences(pieces: list[Piece]) -> list[tuple[str, str]]:
    """The sentences of the pieces' excerpts (once each; a piece without one, itself, with its
    context): a name an edge's chunk gives elsewhere counts."""
    texts: dict[str, str] = {}
    read: set[str] = set()  # excerpts already read: many pieces share one
    for p in pieces:
        if p.excerpt and p.excerpt in read:
            continue
        read.add(p.excerpt)
        for text, context in [(s, "") for s in sentences(p.excerpt)] or [(p.text, p.context)]:
            texts.setdefault(" ".join(text.split()), context)
    return list(texts.items())


def _credits(words: list[str], names: list[tuple[str, ...]], piece: Piece) -> list[float]:
    """Each question word's credit in ``piece``."""
    own = stems_of(piece.text) | stems_of(piece.heading)
    runs = runs_of(piece.text) | runs_of(piece.heading)
    around = stems_of(piece.context)
    out = []
    for word in words:
        s = stem(word)
        mine = [n for n in names if s in n]
        if s in own and (not mine or any(same_name(n, runs) for n in mine)):
            out.append(1.0)
        elif s in around:
            out.append(CONTEXT_CREDIT)
        elif s in own:
            out.append(OTHER_NAME_CREDIT)
        else:
            out.append(0.0)
    return out


def reads_as_sentence(text: str) -> bool:
    """Whether a piece reads as a sentence: it ends with a full stop, '!' or '?' (not '...'),
    holds a verb-like word, and is no list item or usage line ('• bzcat [ -s ] [ filenames
    ...'). Among pieces scoring the same, one that does is the better answer."""
    end = text.strip().rstrip("\"')]’”")
    if not end.endswith((".", "!", "?")) or end.endswith("..") or marked(text):
        return False
    return not _USAGE.search(text) and any(looks_verb(w) for w in words(text))


def _names_a_word(names: list[tuple[str, ...]], piece: Piece) -> bool:
    """Whether the piece, its context or its excerpt holds a word of one of the ``names``."""
    held = (stems_of(piece.text), stems_of(piece.context), stems_of(piece.excerpt))
    return any(w in s for s in held for n in names for w in n)


def ranked(question: str, pieces: list[Piece]) -> list[Scored]:
    """The pieces that support an answer to ``question``, best first (ties: one that reads as
    a sentence first, then input order)."""
    words = [w for w in content_words(question) if w not in QUESTION_WORDS]
    if not words or not pieces:
        return []
    every = [stems_of(p.text) | stems_of(p.context) | stems_of(p.heading) for p in pieces]
    weight = {w: math.log(1 + len(pieces) / (1 + sum(stem(w) in s for s in every))) for w in words}
    total = sum(weight.values())
    names = name_runs(question, skip_first=True)
    evidence = Evidence(names, _sentences(pieces))
    keys = question_keys(question, words, evidence)
    kind = asks(question)
    sort = _kind_noun(question)
    asked = {stem(w) for w in words}
    where = re.search(r"\bwhere\b", question, re.IGNORECASE) is not None
    numbers = {w for w in words if w.isdigit()}  # 'version 3', 'in 1886': what is asked of
    verb, family = act(question)  # who made or founded it: an agentive form says the verb
    named_keys: dict[Key, float] = {k: w for k, w in keys.items() if isinstance(k, tuple)}
    out: list[Scored] = []
    for i, piece in enumerate(pieces):
        if piece.text.endswith("?"):
            continue  # a question answers nothing (a FAQ's: what is below it answers)
        credits = _credits(words, names, piece)
        held = evidence.of(piece.text, f"{piece.context} {piece.heading}")
        how = relation(family, piece.text, asked) if family else ""
        acts = bool(how)
        if acts:
            held.add(stem(verb))
            credits = [1.0 if w == verb else c for w, c in zip(words, credits, strict=True)]
        # who made it, worded: the thing's name says what (a bare 'by' needs every key)
        need = named_keys if how == "act" and named_keys else keys
        if sum(credits) < MIN_COVERAGE * len(words) or not distinct_enough(need, held):
            continue
        if names and not _names_a_word(names, piece):
            continue
        if not numbers <= every[i]:
            continue
        score = sum(c * weight[w] for c, w in zip(credits, words, strict=True)) / total
        if kind and has_kind(kind, piece.text, asked, where):
            score += KIND_BONUS
        if sort and _states_kind(piece.text, sort):
            score += KIND_BONUS
        has = [w for w, c in zip(words, credits, strict=True) if c == 1.0]
        out.append(Scored(i, score, has, reads_as_sentence(piece.text), acts))
    if any(s.acts for s in out):  # who did it: only a piece saying who did answers
        out = [s for s in out if s.acts]
    return sorted(out, key=lambda s: (-s.score, not s.prose, s.index))


def best(question: str, pieces: list[Piece], most: int) -> list[Scored]:
    """The pieces that make the answer: the best one, and up to ``most`` in all of those
    scoring nearly as well that add a question word it lacks, or score the same (no
    padding; when the best reads as a sentence, a tied usage line or list item adds nothing)."""
    found = ranked(question, pieces)
    if not found:
        return []
    chosen = [found[0]]
    covered = set(found[0].words)
    for other in found[1:]:
        if len(chosen) == most or other.score < CLOSE * found[0].score:
            break
        tied = other.score == found[0].score and (other.prose or not found[0].prose)
        if not set(other.words) <= covered or tied:
            chosen.append(other)
            covered |= set(other.words)
    return chosen
