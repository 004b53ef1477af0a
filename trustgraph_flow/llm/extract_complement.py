"""A clause's complement when no name or number follows its verb, for the offline extractor.

'X is a physicist', 'X discovered polonium', 'Chlorine is added to the water': the verb
(with a negation, an unnamed passive's participle or a particle such as 'as' or 'in') and a
lower-case object. 'The Skarra vole is found nowhere else in the world' states where it is
not found: the predicate is the verb and what follows 'nowhere' is kept whole, as a value.
"""

from __future__ import annotations

from trustgraph_flow.llm.extract_verbs import (
    ADVERBS,
    AUXILIARIES,
    NEGATIONS,
    is_participle,
    looks_adverb,
)
from trustgraph_flow.llm.extract_words import (
    ARTICLES,
    CLAUSE_WORDS,
    COPULAS,
    MODALS,
    NOT_VERBS,
    VERB_PARTICLES,
)
from trustgraph_flow.llm.text import STOPWORDS

MAX_OBJECT_WORDS = 3
ABLE = frozenset({"able", "unable"})
DO = frozenset({"do", "does", "did"})  # with a negation, a verb follows: 'does not support'

MAX_PLACE_WORDS = 8  # 'nowhere else in the world'


def object_phrase(tokens: list[str], start: int) -> tuple[str, int]:
    """Up to a few content words, stopping at punctuation, a clause or a stopword after them."""
    words: list[str] = []
    i = start
    while i < len(tokens):
        low = tokens[i].lower()
        if (
            not is_word(tokens[i])
            or low in CLAUSE_WORDS
            or (low in STOPWORDS | NOT_VERBS and words)
        ):
            break
        i += 1
        if low in NEGATIONS and not words:
            return "", i  # "is found nowhere else…": no object to state
        if low in AUXILIARIES and not words:
            return "", i  # "needs to be a valid ref", "may either be the default": a clause
        if low in STOPWORDS or (low in ADVERBS and not words):
            continue
        words.append(tokens[i - 1])
        if len(words) == MAX_OBJECT_WORDS:
            break
    return " ".join(words), i


def complement(tokens: list[str], start: int) -> tuple[str, str, int, bool] | None:
    """(predicate, object, end, literal): 'X is a physicist' / 'X discovered polonium' /
    'Chlorine is added to the water': a lower-case object; 'X is found nowhere else in the
    world': where it is not, a value."""
    verb = [tokens[start]]
    nxt = start + 1
    copula = tokens[start].lower() in COPULAS
    while nxt < len(tokens) and tokens[nxt].lower() in (NEGATIONS | ADVERBS) - {"nowhere"}:
        if tokens[nxt].lower() in NEGATIONS:
            verb.append(tokens[nxt])
        nxt += 1
    modal = tokens[start].lower() in MODALS or (tokens[start].lower() in DO and len(verb) > 1)
    if modal and nxt + 1 < len(tokens) and _base_verb(tokens[nxt]):
        if not is_word(tokens[nxt + 1]) or tokens[nxt + 1].lower() == "to":
            return None  # "will apply, …", "must suffice to run it": no object is stated
        verb.append(tokens[nxt])  # "shall mean the copyright owner", "must give a copy"
        nxt += 1
    if copula and nxt + 2 < len(tokens) and tokens[nxt].lower() in ABLE and tokens[nxt + 1] == "to":
        if _base_verb(tokens[nxt + 2]):  # "is able to decompress": what it can do
            verb += tokens[nxt : nxt + 3]
            nxt, copula = nxt + 3, False
    if copula and nxt + 1 < len(tokens) and tokens[nxt].lower() == "to":
        if tokens[nxt + 1].lower() not in ARTICLES:
            return None  # "Another alternative is to get…": an act to do, no thing
    if copula and nxt < len(tokens) and is_participle(tokens[nxt]):
        verb.append(tokens[nxt])  # "is added": a passive whose agent is not named
        nxt += 1
        copula = False
    if nxt < len(tokens) and tokens[nxt].lower() == "nowhere":
        place, end = _place(tokens, nxt)
        return " ".join(w.lower() for w in verb), place, end, True
    if not copula and nxt < len(tokens) and tokens[nxt].lower() in VERB_PARTICLES:
        verb.append(tokens[nxt])  # "worked as", "lives in"
        nxt += 1
    if nxt < len(tokens) and tokens[nxt].lower() in ARTICLES:
        if copula:
            verb.append(tokens[nxt])  # "is a physicist" keeps its article in the predicate
        nxt += 1
    obj, end = object_phrase(tokens, nxt)
    if not obj:
        return None
    return " ".join(w.lower() for w in verb), obj, end, False


def _place(tokens: list[str], start: int) -> tuple[str, int]:
    """'nowhere else in the world': the words up to the clause's end."""
    end = start
    while end < len(tokens) and end - start < MAX_PLACE_WORDS:
        if not is_word(tokens[end]) or (end > start and tokens[end].lower() in CLAUSE_WORDS):
            break
        end += 1
    return " ".join(tokens[start:end]), end


def _base_verb(token: str) -> bool:
    """A verb's base form after a modal: a lower-case word that is no stopword or article."""
    low = token.lower()
    return (
        token.isalpha()
        and token.islower()
        and low not in STOPWORDS | NOT_VERBS | ADVERBS
        and not looks_adverb(token)
    )


def is_word(token: str) -> bool:
    """A word, a number, or a file's extension ('.gz')."""
    return token[:1].isalnum() or (token[:1] == "." and token[1:2].isalpha())
