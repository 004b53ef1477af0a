"""Sentence openings that name no subject, for the offline extractor (issue 29, junk edges).

What ``extract_subject.subjects`` finds at a sentence's start is not always what the clause is
about: a name before a lower-case possessive owns the subject ("The JPEG library's memory
manager controls…": not JPEG), a name before a symbol is a formula or a table cell ("Rec. ITU-T
T.81 | ISO/IEC 10918-1 regards…"), a participle with its agent and no auxiliary describes the
subject ("Compressed data created by this version is…", "Changes made by dpkg … are…") or, with
no auxiliary anywhere, is a heading ("Message received out of order by manager"), a verb opening
an imperative is none ("Read coded data from…"), and 'it' before "is allowed for", "is possible
to" stands for nothing ("It is allowed for the functionality … to fail"). Such a sentence states
no fact of that name, and 'it' in the next stands for nothing either.
"""

from __future__ import annotations

from trustgraph_flow.llm.extract_owned import GENITIVE
from trustgraph_flow.llm.extract_verbs import (
    ADVERBS,
    AUXILIARIES,
    BASE_VERBS,
    IRREGULAR_PAST,
    NEGATIONS,
    is_participle,
)
from trustgraph_flow.llm.extract_words import ARTICLES, COPULAS, MODALS, PREPOSITIONS

# A name right before one of these is a cell or a term of a formula, not a subject.
SYMBOLS = frozenset("|=+<>*/\\~^")
# 'It is <word> for / to / that …': an empty 'it' (nothing before is meant).
EMPTY_IT_AFTER = frozenset({"for", "to", "that", "whether"})
_BEFORE_WORD = ADVERBS | NEGATIONS  # read past between 'It is' and its word
_VERB_TO_COME = COPULAS | MODALS  # after a reduced passive's agent
VERB_ENDINGS = ("ate", "ize", "ise", "ify")  # 'Indicate', 'Initialize', 'Specify'
_NO_NOUN = ARTICLES | PREPOSITIONS | AUXILIARIES | NEGATIONS | {"and", "or", "that", "this"}
MAX_HEADLINE_GAP = 3  # words between a headline's participle and its agent ("out of order")


def no_subject(tokens: list[str], start: int) -> bool:
    """Whether what ``subjects`` found before ``start`` is not the sentence's subject."""
    if start >= len(tokens):
        return False
    nxt = tokens[start]
    if nxt in SYMBOLS or (nxt.islower() and nxt.endswith(GENITIVE)):
        return True
    return _reduced_passive(tokens, start) or empty_it(tokens) or _imperative(tokens, start)


def _imperative(tokens: list[str], start: int) -> bool:
    """'Read coded data from the source', 'Indicate bit values via…': a verb's base form
    capitalised to open a sentence, then a participle or past form and a bare noun (a past
    tense takes its object with an article or a name: 'Mark founded the firm')."""
    word = tokens[0]
    if start != 1 or not (word.isalpha() and word[:1].isupper() and word[1:].islower()):
        return False
    low = word.lower()
    if low not in BASE_VERBS and not (len(low) > 5 and low.endswith(VERB_ENDINGS)):
        return False
    if start + 1 >= len(tokens):
        return False
    verb = tokens[start]
    if not (verb.islower() and (verb in IRREGULAR_PAST or is_participle(verb))):
        return False
    after = tokens[start + 1]
    return after.isalpha() and after.islower() and after not in _NO_NOUN


def _reduced_passive(tokens: list[str], start: int) -> bool:
    """'Compressed data created by this version is…': a participle and its agent with no
    auxiliary describe the subject; they are not its act. An irregular participle may be
    a past tense ("Hale built by the river…"), so it counts only with a verb to come."""
    word = tokens[start] if start < len(tokens) else ""
    if not is_participle(word):
        return False
    if start + 1 >= len(tokens) or tokens[start + 1].lower() != "by":
        return _headline(tokens, start)
    later = {t.lower() for t in tokens[start + 2 :]}
    return word.lower().endswith("ed") or bool(later & _VERB_TO_COME)


def _headline(tokens: list[str], start: int) -> bool:
    """'Message received out of order by manager': a participle in '-ed', a short phrase,
    its agent, and no auxiliary in the whole sentence: a heading or a table's cell, not a
    past tense ('Hale worked in Leeds by 1880' has a year, not an agent)."""
    word = tokens[start].lower()
    if not word.endswith("ed") or word.endswith("eed") or AUXILIARIES & {t.lower() for t in tokens}:
        return False  # 'need', 'exceed', 'proceed': a base form, no participle
    window = tokens[start + 1 : start + 2 + MAX_HEADLINE_GAP]
    by = next((i for i, t in enumerate(window) if t.lower() == "by"), None)
    if by is None or not all(t.isalpha() and t.islower() for t in window[:by]):
        return False
    agent = start + 2 + by
    agent += agent < len(tokens) and tokens[agent].lower() in ARTICLES
    return agent < len(tokens) and tokens[agent][:1].isalpha()


def empty_it(tokens: list[str]) -> bool:
    if len(tokens) < 4 or tokens[0].lower() != "it" or tokens[1].lower() not in COPULAS:
        return False
    i = 2
    while i < len(tokens) and tokens[i].lower() in _BEFORE_WORD:
        i += 1
    word = tokens[i] if i < len(tokens) else ""
    if not (word.isalpha() and word.islower()) or word in AUXILIARIES:
        return False
    return i + 1 < len(tokens) and tokens[i + 1].lower() in EMPTY_IT_AFTER
