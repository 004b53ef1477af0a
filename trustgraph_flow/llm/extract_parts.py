"""Facts whose words are the wrong part of speech for their place, told by the lexicon
(``lexicon``): a relation no word of which can be a verb (a plural noun read as the verb:
'Java → implementations → tend' of "Java implementations tend to…"), a subject that is a
lone derived or compared adjective ('Optional → could put → nominee', of "The _Optional_
steps…"; 'Higher → numbers result in → output'; not a name such as 'Hale') or ends in a
verb ('Friedl's home page gives → links to → sites'), and an object that can only be a verb
('Valgrind stack → traces → get'; unless the sentence shows it a thing: ``_spared``). A word the lexicon does not know (a name, code, a
number) may be anything; a word in '-ing' or '-ed' may be a noun or an adjective ('marker
parsing', 'entity authorized'); a capitalised word inside a label is a name ('Display →
receives → Accept')."""

from __future__ import annotations

import re

from trustgraph_flow.llm.extract_verbs import NEGATIONS, is_participle, looks_adverb
from trustgraph_flow.llm.lexicon import (
    ADJ,
    ADV,
    AUX,
    NOUN,
    PROPN,
    VERB,
    can_be,
    lemmas,
    parts_of_speech,
)

_THING = (NOUN, PROPN, ADJ)


def _verbal(word: str) -> bool:
    """A participle or a gerund, which may name a thing or describe one."""
    return word.lower().endswith("ing") or is_participle(word)


def _only_verb(word: str, initial: bool) -> bool:
    """Whether the lexicon knows ``word`` as a verb and never as a noun or adjective (a
    capitalised word that does not open its label is a name, never only a verb)."""
    if _verbal(word) or (word[:1].isupper() and not initial):
        return False
    return can_be(word, *_THING) is False


def _no_verb(p: str) -> bool:
    """Whether the relation's first word, past negations and adverbs, cannot be a verb
    ('implementations', 'collaborators maintain', 'parsers available from'); a word the
    lexicon does not know decides nothing."""
    for word in p.split():
        known = parts_of_speech(word)
        if word.lower() in NEGATIONS or looks_adverb(word) or known == {ADV}:
            continue
        return bool(known) and not known & {VERB, AUX}
    return False


# Endings of adjectives made from other words ('Optional', 'Allowable', 'Warlike'): a name
# ('Hale', 'Strong', 'Hardy', which the lexicon knows as adjectives too) seldom has one.
_DERIVED = ("al", "able", "ible", "ive", "ous", "ful", "less", "ic", "ary", "ent", "ant", "like")


def _lone_adjective(s: str) -> bool:
    """A subject of one word the lexicon knows only as an adjective (or adverb), a derived
    one or a comparison ('Optional', 'Higher'): its noun was read as the relation or lost."""
    known = parts_of_speech(s)
    if " " in s or _verbal(s) or ADJ not in known or not known <= {ADJ, ADV}:
        return False
    return s.lower().endswith(_DERIVED) or lemmas(s, ADJ) != {s.lower()}


def _mentioned(word: str, sentence: str) -> bool:
    """Whether the sentence quotes the word as a term ('"Incorporate" means to publish')."""
    return re.search(rf"[\"“']{re.escape(word)}[\"”']", sentence) is not None


def _spared(p: str, head: str, sentence: str) -> bool:
    """Whether an object the lexicon knows only as a verb is a thing after all: after 'to'
    an act, true to the sentence ('is granted to → distribute', "encouraged me to
    improve"); in a list a noun the table lacks ('wool, tin and copper'); in '-s' (not
    '-ss') a plural noun it lacks ('schedules → rebuilds')."""
    word = re.escape(head)
    low = head.lower()
    return (
        p.split()[-1].lower() == "to"
        or (low.endswith("s") and not low.endswith("ss"))
        or re.search(rf"\bto\s+{word}\b", sentence, re.IGNORECASE) is not None
        or re.search(
            rf",\s*{word}\b|\b{word}\s*,|\b(and|or)\s+{word}\b|\b{word}\s+(and|or)\b", sentence
        )
        is not None
    )


def misread(s: str, p: str, o: str, literal: bool, sentence: str) -> bool:
    """Whether a fact's words are the wrong part of speech for their places (the module's
    docstring); ``sentence`` is the text it was read from."""
    if _no_verb(p) or _lone_adjective(s):
        return True
    words = s.split()
    # a lone lower-case word as subject is a program's name ('unzip can decompress…'):
    # English opens a sentence with a capital (``extract_lower``, ``extract_names``)
    named = len(words) == 1 and (_mentioned(s, sentence) or s.islower())
    if _only_verb(words[-1], len(words) == 1) and not named:
        return True
    heads = [w for w in o.split() if not looks_adverb(w)]
    if literal or not heads:
        return False
    return _only_verb(heads[-1], False) and not _spared(p, heads[-1], sentence)
