"""Subjects a README names in ways ``extract_subject`` does not read, for the offline
extractor (issue 29, recall on plain prose): GNU gettext's README gave no edge at all.

- A program's name in lower case after 'the' and before its kind: "The msgmerge program
  prepares…", "The configure script provides…" (a word the lexicon does not know, or knows
  only as a verb: after an article it is a name).
- A sentence that surely starts with lower-case names (``extract_lower``): a list of them
  ("zip and unzip are…", "zip 1.9 and gzip do not…"), or one before a verb the lexicon knows
  in '-s' or '-ed' ("gunzip checks a CRC"; not "gzip files are…", whose verb comes after).
- A name after a short opening phrase with no comma: "For this task GNU gettext provides…",
  "By default gzip uses…".
"""

from __future__ import annotations

from trustgraph_flow.llm.extract_clause import is_cap
from trustgraph_flow.llm.extract_complement import is_word
from trustgraph_flow.llm.extract_kinds import is_noun
from trustgraph_flow.llm.extract_subject import Memory, kind_after, subjects
from trustgraph_flow.llm.extract_tokens import past_version
from trustgraph_flow.llm.extract_verbs import (
    ADVERBS,
    AUXILIARIES,
    is_participle,
    known_verb,
    looks_adverb,
    looks_verb,
)
from trustgraph_flow.llm.extract_words import ARTICLES, PRONOUNS
from trustgraph_flow.llm.lexicon import NOUN, VERB, can_be, parts_of_speech
from trustgraph_flow.llm.text import STOPWORDS

# Prepositions that open a phrase before the subject ("For this task", "By default").
FRONTING = frozenset("for in on at with by during under within without from unlike".split())
MAX_FRONTED = 5  # words of an opening phrase with no comma
MAX_KIND = 2  # lower-case nouns between a name and its verb ('shell scripts')


def _name_like(word: str, opening: bool = False) -> bool:
    """A lower-case word that can be a program's name: no stopword, adverb, pronoun or verb
    form, and either unknown to the lexicon or known only as a verb ('unzip', 'configure');
    any such word where a sentence surely starts (English would write a capital: 'zip')."""
    if not (word[:1].islower() and word.replace("-", "").isalnum() and len(word) > 1):
        return False
    if word in STOPWORDS or word in ADVERBS or word in PRONOUNS or looks_verb(word):
        return False
    known = parts_of_speech(word)
    return opening or not known or known <= {VERB}


def _verb_at(tokens: list[str], i: int, plural: bool = False) -> bool:
    """Whether ``tokens[i]`` is a finite verb: an auxiliary, a known verb, or a word the
    lexicon knows as a verb in '-s' or '-ed' (after a list of names, any form) with no verb
    right after it."""
    if i >= len(tokens):
        return False
    word = tokens[i]
    if word.lower() in AUXILIARIES or known_verb(word):
        return True
    if not (word.isalpha() and word.islower() and (plural or word.endswith(("s", "ed")))):
        return False
    after = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
    return bool(can_be(word, VERB)) and after not in AUXILIARIES and not known_verb(after)


def _lower_list(tokens: list[str]) -> tuple[list[str], int]:
    """'zip and unzip are…', 'zip 1.9 and gzip do not…', 'gunzip checks…'."""
    found: list[str] = []
    i = 0
    while i < len(tokens) and _name_like(tokens[i], opening=True):
        end = past_version(tokens, i + 1)
        found.append(" ".join(tokens[i:end]))
        verb = end
        while verb < len(tokens) and looks_adverb(tokens[verb]):
            verb += 1  # "gzip currently uses…"
        if _verb_at(tokens, verb, plural=len(found) > 1):
            return found, end
        if end + 1 < len(tokens) and tokens[end] in (",", "and"):
            i = end + 1 + (tokens[end] == "," and tokens[end + 1] == "and")
            continue
        break
    return [], 0


def _kind_named(tokens: list[str]) -> tuple[list[str], int]:
    """'The msgmerge program prepares…': the name and its kind, and where the verb is."""
    if len(tokens) < 4 or tokens[0].lower() not in ARTICLES or not _name_like(tokens[1]):
        return [], 0
    end = 2
    while end < len(tokens) and end - 2 < MAX_KIND and tokens[end].isalpha():
        word = tokens[end]
        if not (word.islower() and is_noun(word) and can_be(word, NOUN)):
            break
        end += 1
    if end == 2 or not _verb_at(tokens, end):
        return [], 0
    return [" ".join(tokens[1:end])], end


def _after_fronted(tokens: list[str], memory: Memory) -> tuple[list[str], int]:
    """'For this task GNU gettext provides…': the subject after an opening phrase of a
    preposition and a few lower-case words (no verb, no comma). A participle there with a
    comma after it is the phrase's own ('At the URLs listed in this category, sed…')."""
    if not tokens or tokens[0].lower() not in FRONTING:
        return [], 0
    for i in range(1, min(len(tokens), MAX_FRONTED + 2)):
        word = tokens[i]
        if i > 1 and (is_cap(word) or _name_like(word)):
            break
        if not (word.isalpha() and word.islower()) or looks_verb(word):
            return [], 0
    else:
        return [], 0
    if is_cap(word):
        found, start = subjects(tokens[i:], memory)
        found, start = (found, i + start) if found else ([], 0)
    else:
        found, start = ([word], i + 1) if _verb_at(tokens, i + 1) else ([], 0)
    if found and start < len(tokens) and is_participle(tokens[start]) and "," in tokens[start:]:
        return [], 0
    return found, start


def named_subject(tokens: list[str], opening: bool, memory: Memory) -> tuple[list[str], int]:
    """The subjects of a sentence ``subjects`` found none in, and where their verb is
    (``opening``: the sentence surely starts where it does)."""
    if not tokens or not all(is_word(t) for t in tokens[:2]):
        return [], 0
    if opening:
        found, start = _lower_list(tokens)
        if found:
            return found, start
    found, start = _kind_named(tokens)
    if found:
        return found, start
    return _after_fronted(tokens, memory)


def named_kind(tokens: list[str], end: int) -> int:
    """Past a name's lower-case kind, none of whose words can be a verb ('GNU gettext
    provides'; not 'Vk sample rows', 'HP-UX sed permit comments'), else ``end``."""
    kind = kind_after(tokens, end)
    return kind if all(not can_be(w, VERB) for w in tokens[end:kind]) else end
