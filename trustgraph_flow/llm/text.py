"""Small text helpers shared by the offline engine: sentences, content words, overlap."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

# Closed-class words (articles, pronouns, prepositions, auxiliaries, conjunctions, quantifiers):
# capitalised, they are a sentence's start, never a name.
FUNCTION_WORDS = frozenset(
    """a an the and or but if then else of in on at to for from by with about as into onto
    is are was were be been being am do does did done has have had having it its this that
    these those there here what which who whom whose when where why how i me my we our you
    your he him his she her they them their not no nor so than too very can could should
    would will shall may might must just also any all some each every both few more most
    other such only own same over under again further once up down out off through across
    between within without""".split()
)
# Words a request is phrased with ("tell me", "list the", "name the"): no content of a
# question, but open-class words a name can be ("the River Tell").
REQUEST_WORDS = frozenset("tell show give please know find list name".split())
STOPWORDS = FUNCTION_WORDS | REQUEST_WORDS

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


def sentences(text: str) -> list[str]:
    """Split text into trimmed, non-empty sentences."""
    return [text[a:b] for a, b in sentence_spans(text)]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each trimmed, non-empty sentence of ``text`` is: (start, end) character offsets."""
    spans: list[tuple[int, int]] = []
    start = 0
    for end, after in [(m.start(), m.end()) for m in _SENTENCE_END.finditer(text)] + [
        (len(text), len(text))
    ]:
        piece = text[start:end]
        lead = len(piece) - len(piece.lstrip())
        body = piece.strip()
        if body:
            spans.append((start + lead, start + lead + len(body)))
        start = after
    return spans


def unquoted_ends(sentence: str) -> str:
    """A sentence without a quotation mark at its end or start that opens or closes nothing
    in it: a quotation of two sentences split at its full stop ("The road runs to Port
    Ellis.\"" of 'The guide says: "Skarra has one road. The road runs to Port Ellis."')."""
    for opening, closing in (('"', '"'), ("“", "”")):
        opened, closed = sentence.count(opening), sentence.count(closing)
        if (opened % 2 == 0) if opening == closing else (opened == closed):
            continue  # every quotation in it is closed
        if sentence.endswith(closing) and (opening == closing or not opened):
            sentence = sentence[:-1].rstrip()
        elif sentence.startswith(opening) and (opening == closing or not closed):
            sentence = sentence[1:].lstrip()
    return sentence


_BULLET = re.compile(r"[•◦▪‣∙*+-]\s+")


def unbulleted(sentence: str) -> str:
    """A sentence without the mark of the list item it was read from ("• magic elements
    contain…" of a PDF's list): an answer says the item, not its bullet."""
    return _BULLET.sub("", sentence, count=1) if _BULLET.match(sentence) else sentence


def words(text: str) -> list[str]:
    """The words of ``text``, as written (apostrophes inside a word kept: "Quist's")."""
    return _WORD.findall(text)


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (or the empty string)."""
    found = sentences(text)
    return found[0] if found else ""


# Past forms that no suffix rule reaches, to their base ("taught" meets "teach").
IRREGULAR = {
    "taught": "teach",
    "wrote": "write",
    "written": "write",
    "built": "build",
    "bought": "buy",
    "sold": "sell",
    "made": "make",
    "gave": "give",
    "given": "give",
    "took": "take",
    "taken": "take",
    "began": "begin",
    "begun": "begin",
    "led": "lead",
    "held": "hold",
    "kept": "keep",
    "left": "leave",
    "drew": "draw",
    "drawn": "draw",
    "grew": "grow",
    "grown": "grow",
    "knew": "know",
    "known": "know",
    "won": "win",
    "ran": "run",
    "saw": "see",
    "seen": "see",
    "became": "become",
    "came": "come",
    "went": "go",
    "gone": "go",
    "met": "meet",
    "paid": "pay",
    "sent": "send",
    "spent": "spend",
    "brought": "bring",
    "thought": "think",
    "told": "tell",
    "said": "say",
    "dug": "dig",
    "rose": "rise",
    "risen": "rise",
    "fell": "fall",
    "fallen": "fall",
    "lay": "lie",
    "lain": "lie",
    "ate": "eat",
    "eaten": "eat",
    "chose": "choose",
    "chosen": "choose",
    "spoke": "speak",
    "spoken": "speak",
    "born": "bear",
    "bore": "bear",
}


@lru_cache(maxsize=1 << 16)  # pure; a question's pieces repeat the same words thousands of times
def stem(word: str) -> str:
    """A very light stemmer so 'capitals' meets 'capital', 'studied' 'study', 'opened'
    'open', 'released' 'release', 'died' 'die' and 'taught' 'teach'; a possessive is its
    owner ("Zstandard's" meets 'Zstandard')."""
    word = word.lower()
    word = word[:-2] if word.endswith(("'s", "’s")) else word.rstrip("'’")
    word = IRREGULAR.get(word, word)
    if len(word) == 4 and word.endswith("ed") and word[1] != "e" and word[:3] not in STOPWORDS:
        word = word[:-1]  # "died" → "die", "used" → "use": too short for the rules below
    for suffix, repl in (
        ("ies", "y"),
        ("ied", "y"),
        ("es", ""),
        ("s", ""),
        ("ed", ""),
        ("ing", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                break
            word = word[: -len(suffix)] + repl
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # "planned" → "plan"
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def content_words(text: str) -> list[str]:
    """Lower-cased words of ``text`` minus stopwords, in order, without repeats."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)


def overlap(question_words: Iterable[str], text: str) -> list[str]:
    """The question words (in question order) whose stems occur in ``text``."""
    stems = {stem(w) for w in _WORD.findall(text.lower())}
    return [w for w in question_words if stem(w) in stems]


def as_text(value: Any) -> str:
    """A variable as a string, whatever the caller sent."""
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def as_list(value: Any) -> list[Any]:
    """A variable as a list, whatever the caller sent."""
    if isinstance(value, list):
        return value
    if isinstance(value, tuple):
        return list(value)
    return [] if value is None or value == "" else [value]


def field(item: Any, key: str) -> str:
    """``item[key]`` as text when ``item`` is a mapping, else the empty string."""
    return as_text(item.get(key)) if isinstance(item, dict) else ""
