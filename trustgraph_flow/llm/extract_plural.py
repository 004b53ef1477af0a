"""A sentence that opens with a description, not a name: for the offline extractor.

A sentence's first word is capitalised whatever it is, so "Multiple files may be
compressed", "Six routines make up the interface", "Earlier versions of bzip2 will stop" and
the heading "Possible assignments to bzerror" look like a name ("Multiple") and a verb
("files", a third person's '-s'). They are not: a word taken for a verb by its '-s' alone,
followed by an auxiliary, a verb or a preposition, is a plural noun, the head of the
subject; what such a sentence says of its description is no fact about a name. After a list
of names ("The Hostname and Status fields as in the Willing packet") an '-s' word is always
such a noun: a verb agrees with the list in the plural. (A name and its verb, "Sed reads its
input", "Marrowby lies on the Wear", are read as before.)
"""

from __future__ import annotations

from trustgraph_flow.llm.extract_clause import is_cap
from trustgraph_flow.llm.extract_verbs import (
    AUXILIARIES,
    BASE_VERBS,
    NEGATIONS,
    is_participle,
    known_verb,
    looks_adverb,
)
from trustgraph_flow.llm.extract_words import PREPOSITIONS


def _plural_only(word: str) -> bool:
    """A lower-case '-s' word the extractor would take for a verb by its ending alone."""
    return _third_person(word) and not known_verb(word)


def _third_person(word: str) -> bool:
    """'fields', 'runs': a lower-case '-s' word, no auxiliary (a verb of one subject)."""
    low = word.lower()
    return (
        word.isalpha()
        and word.islower()
        and low.endswith("s")
        and not low.endswith(("ss", "us", "is", "ous"))
        and low not in AUXILIARIES
    )


def _verb_sign(word: str) -> bool:
    low = word.lower()
    return word.islower() and (
        low in AUXILIARIES
        or low in NEGATIONS
        or looks_adverb(word)
        or low == "cannot"
        or known_verb(word)
        or is_participle(word)
    )


def opens_with_description(subjects: list[str], tokens: list[str], start: int) -> bool:
    """Whether the word at ``start``, where the predicate would begin, is rather the plural
    noun that ends the sentence's opening description ('Multiple files', 'Custom memory
    allocators', 'Earlier versions of bzip2'). A preposition after it counts only when the
    subject is the sentence's one capitalised word, spelt as an English word ('Earlier', not
    'Apache License' nor 'HHsed'): headings are such ('Possible assignments to bzerror'), and
    so, wrongly, is a one-word name with a verb the lists lack ('Grepper exits with…')."""
    if not subjects or start >= len(tokens):
        return False
    if len(subjects) > 1 and _third_person(tokens[start]):
        return True  # "The Hostname and Status fields as in…": a list takes no '-s' verb
    words = subjects[0].split()
    word = words[0]  # a word capitalised for the sentence, not "HHsed" or "BZ2_bzRead"
    plain = len(subjects) == 1 and word[1:].islower() and word.isalpha() and tokens[0] == word
    if plain and len(words) == 1 and not word.endswith("s") and tokens[start] in BASE_VERBS:
        return True  # "Subsequent work by Sadakane…": a singular name takes no base form
    if not _plural_only(tokens[start]):
        return False
    after = tokens[start + 1] if start + 1 < len(tokens) else ""
    if not after or not after[:1].isalpha() or _verb_sign(after) or after == "of":
        return True  # "Four hyphens separate…"; "The W3C and ISO documents have…"; "DOS
        # versions of sed"
    return plain and sum(is_cap(w) for w in words) == 1 and after.lower() in PREPOSITIONS
