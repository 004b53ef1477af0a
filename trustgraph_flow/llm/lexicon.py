"""The parts of speech an English word can be, from a lexicon: lemminflect's lookup table,
built from the SPECIALIST lexicon (about 80,000 word forms). Only the table is read, never
lemminflect's guessing models for unknown words: a word the table lacks (a name, code, a
number) is unknown, and the rules that ask treat it as able to be anything.

The table loads on the first question (about 0.6 s and 34 MB, once a process) and each
word's answer is kept."""

from __future__ import annotations

import re
from functools import lru_cache

# Universal parts of speech the table knows.
NOUN, PROPN, VERB, AUX, ADJ, ADV = "NOUN", "PROPN", "VERB", "AUX", "ADJ", "ADV"
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


@lru_cache(maxsize=65536)
def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech ``word`` can be ('pack' → NOUN, VERB); empty when the table does
    not know it, or it is no word (a number, a code name with digits or underscores)."""
    if not _WORD.fullmatch(word):
        return frozenset()
    from lemminflect import getAllLemmas  # the table loads on the first call

    return frozenset(getAllLemmas(word))


@lru_cache(maxsize=65536)
def lemmas(word: str, part: str) -> frozenset[str]:
    """The base forms, lower case, ``word`` has as ``part`` ('higher' as ADJ → 'high')."""
    if not _WORD.fullmatch(word):
        return frozenset()
    from lemminflect import getAllLemmas

    return frozenset(w.lower() for w in getAllLemmas(word, part).get(part, ()))


def can_be(word: str, *parts: str) -> bool | None:
    """Whether ``word`` can be one of ``parts``; None when the lexicon does not know it."""
    known = parts_of_speech(word)
    return bool(known & set(parts)) if known else None
