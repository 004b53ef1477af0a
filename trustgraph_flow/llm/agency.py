"""Who did it: whether a sentence says who made or founded what a *who* question asks about,
for the offline engine's answers and its verification (issue 29, near-topic questions).

"Who founded Facebook?", asked of a README that says "Zstandard is … deployed within
Facebook", was answered with that sentence: it names something the question does not, and
the question's verb, in no sentence of the evidence, is left out of the weighing
(``question_keys``). Requiring the verb itself would lose answers worded otherwise ("an
open-source benchmark by @inikep" answers who wrote lzbench; "Kernighan and Plauger's book
Software Tools in Pascal" who wrote it). So a question asking who made or founded something
(``act``: its verb, after ``who`` and any adverb, is one of a small closed family) is
answered only by a sentence that relates someone to it by one of the family's agentive forms
(``relates``):

- a *by* phrase whose agent the question does not hold ("written by Anthony Green",
  "a benchmark by @inikep", "minizip by Giles Vollant", "built by monks from Iona"; a name
  or a handle, not a common noun: "made by the compiler", "by its authors"), after a word
  of the family or after a word that is no inflected verb ("deployed by X", "hosted by X"
  say another act), and *due to*, *credited to*, *thanks to* a name ("The ideas … are due
  to … Michael Burrows and David Wheeler (for the block sorting transformation)");
- the family's verb after a name none of whose words the question holds, with at most
  auxiliaries and adverbs between ("Casimir Rook designed…", "Yann Collet has also
  written…"; not "an implementation written for use in the Linux kernel" nor "The Belem
  Tower in Lisbon was built": no agent; nor "XZ Utils create…" asked who designed the .xz
  format: the thing's own name);
- an agent noun of the family ("the author of OttoPDF", "its founder");
- a possessive naming the thing itself, with at most two words between and no *of*
  ("Kernighan and Plauger's book Software Tools in Pascal"; not "Maxwell's photo of the
  Eiffel Tower", which is a photo's owner).

``relation`` tells the first three kinds that word the act (the family's verb after a name or
before *by*, an agent noun) from a *by* or *due to* after another word and a possessive,
which do not: the answerer asks less of the thing's description only of the former. A word
of the family the question holds, not a past form, is the thing's name ("GNU Make is
copyright by…"), never the act.

Making (write, design, invent, develop, …) and founding (found, establish, start, …) are two
families: "developed at Facebook" does not say who founded Facebook.
"""

from __future__ import annotations

import re

from trustgraph_flow.llm.extract_verbs import ADVERBS, AUXILIARIES
from trustgraph_flow.llm.lexicon import NOUN, VERB, lemmas, parts_of_speech
from trustgraph_flow.llm.text import STOPWORDS, sentences, stem, words

MAKING = frozenset(
    "write author create develop design invent make build implement devise compose draw "
    "originate".split()
)
FOUNDING = frozenset("found establish create start co-found cofound".split())
FAMILIES = (MAKING, FOUNDING)
AGENT_NOUNS = {  # an agent noun: the act it names
    "writer": "write", "author": "write", "creator": "create", "developer": "develop",
    "designer": "design", "inventor": "invent", "maker": "make", "builder": "build",
    "implementer": "implement", "implementor": "implement", "programmer": "program",
    "composer": "compose", "originator": "originate", "founder": "found",
    "co-founder": "found", "cofounder": "found",
}  # fmt: skip
CREDITED = frozenset({"due", "credited", "thanks"})  # 'due to X': X's work
BE = frozenset({"is", "was", "are", "were", "be", "been"})
PAST_FORMS = frozenset("wrote written built made drew drawn began begun".split())
LIST_OPENING = frozenset({"least", "following", "people", "persons"})
NOT_AGENTS = frozenset({"default", "hand", "means", "way", "far", "example", "itself"})
_BY_IN_WORD = re.compile(r"(?<=\w)-by-(?=\w)")  # a compound's 'by' names no agent
_GAP = 3  # auxiliaries and adverbs between a name and its verb ("has also written")


def _bases(word: str) -> frozenset[str]:
    low = word.lower()
    return lemmas(low, VERB) | ({low} if low in MAKING | FOUNDING else frozenset())


def act(question: str) -> tuple[str, frozenset[str]]:
    """The verb a *who* question asks about and its family, when it asks who made or founded
    something ("Who originally wrote Wget?": 'wrote', MAKING); else ('', empty)."""
    low = [w.lower() for w in words(question)]
    if "who" not in low:
        return "", frozenset()
    for word in low[low.index("who") + 1 :]:
        if word in ADVERBS or (word.endswith("ly") and len(word) > 4):
            continue
        if word in AUXILIARIES or word == "found":  # 'found': find's past, mostly
            break
        bases = _bases(word)
        family = frozenset().union(*(f for f in FAMILIES if bases & f))
        return (word, family) if family else ("", frozenset())
    return "", frozenset()


def _of_family(word: str, family: frozenset[str]) -> bool:
    return bool(_bases(word) & family)


def _agent_noun(tokens: list[str], family: frozenset[str], asked: set[str]) -> bool:
    """An agent noun of the act tied to the thing: 'the author of OttoPDF', 'libffi's founder',
    'the OttoPDF author' (not 'the HTTP 1.1 authors', asked who created the gzip format)."""
    for i, word in enumerate(tokens):
        low = word.lower()
        if not any(AGENT_NOUNS.get(n, "") in family for n in {low, *lemmas(low, NOUN)}):
            continue
        near = tokens[max(0, i - 2) : i] + tokens[i + 1 : i + 4]
        if any(stem(t) in asked for t in near):
            return True
    return False


def _inflected(word: str) -> bool:
    """A verb form other than the base ('deployed', 'hosted'; not 'benchmark', 'copyright')."""
    bases = lemmas(word.lower(), VERB)
    return bool(bases) and word.lower() not in bases


def _agent_named(
    low: list[str], tokens: list[str], at: int, reach: int, asked: set[str], strict: bool = False
) -> bool:
    """Whether an agent the question does not name stands within ``reach`` words from ``at``:
    a capitalised word, or a handle the lexicon does not know ('@inikep'); not a common noun
    ("by its authors", "made by the compiler") nor an act ("by moving"). ``strict``: no
    other word but a list's opening between ("due to (at least) the following people:
    Michael Burrows"; not "due to an unfortunate choice of name on the part of the HTTP…")."""
    for k in range(at, min(len(tokens), at + reach)):
        word = tokens[k]
        if low[k] in STOPWORDS or low[k] in NOT_AGENTS or low[k].endswith("ing"):
            continue
        if word[:1].isupper() or not parts_of_speech(low[k]):
            return stem(word) not in asked
        if strict and low[k] not in LIST_OPENING:
            return False
    return False


def _acting(word: str, family: frozenset[str], asked: set[str]) -> bool:
    """Whether ``word`` is the family's act: a past form ("created", "written"), or one the
    question does not hold ("GNU Make is copyright by…": 'Make' is the thing's name)."""
    low = word.lower()
    past = low in PAST_FORMS or low.endswith("ed")
    return _of_family(word, family) and (past or stem(word) not in asked)


def _by(tokens: list[str], family: frozenset[str], asked: set[str]) -> str:
    """How a *by* (or *due to*) phrase relates an agent to the act: 'act' after a word of the
    family ("created by David Korn"), 'by' after a word that is no inflected verb or under a
    title ("a benchmark by @inikep", "copyright by the Free Software Foundation": the act
    is not worded), '' when none does."""
    low = [t.lower() for t in tokens]
    found = ""
    for i, word in enumerate(low):
        if word == "by":
            at, reach = i + 1, 4  # 'by monks from Iona', 'by the members of the Wey Society'
        elif word == "to" and i and low[i - 1] in CREDITED:
            at, reach = i + 1, 7  # 'are due to (at least) the following people: Michael…'
        else:
            continue
        if not _agent_named(low, tokens, at, reach, asked, strict=word == "to"):
            continue
        before = [t for t in tokens[max(0, i - 4) : i] if t.lower() not in ADVERBS]
        if word == "by" and any(_acting(t, family, asked) for t in before):
            return "act"
        titled = i > 1 and before and before[-1][:1].isupper()  # 'A Guide to Knot Tying by X'
        if word == "to" or (
            before
            and (titled or not _inflected(before[-1]))
            and before[-1].lower() not in STOPWORDS
        ):
            found = "by"
    return found


def _noun_form(word: str) -> bool:
    """A word of the family that may be a noun where it stands ('the HTTP authors', 'the
    Linux build'): no past form ('founded', 'wrote', 'built')."""
    low = word.lower()
    return NOUN in parts_of_speech(low) and not low.endswith("ed") and low not in PAST_FORMS


def _active(tokens: list[str], family: frozenset[str], asked: set[str]) -> bool:
    for j, word in enumerate(tokens):
        if not _of_family(word, family) or word.lower().endswith("ing") or _noun_form(word):
            continue
        k = j - 1
        while k >= 0 and j - k <= _GAP and tokens[k].lower() in AUXILIARIES | ADVERBS:
            if tokens[k].lower() in BE:
                break  # 'The Belem Tower in Lisbon was built': a passive, no agent
            k -= 1
        run = []
        while k >= 0 and tokens[k][:1].isupper() and tokens[k].lower() not in STOPWORDS:
            run.append(stem(tokens[k]))
            k -= 1
        if run and not set(run) & asked:  # 'XZ Utils create…' is the thing's own name
            return True
    return False


def _possessive(tokens: list[str], asked: set[str]) -> bool:
    for i, word in enumerate(tokens):
        if not word.endswith(("'s", "’s")) or not word[:1].isupper() or stem(word) in asked:
            continue
        for gap in range(3):
            at = i + 1 + gap
            if at >= len(tokens):
                break
            nxt = tokens[at]
            if nxt[:1].isupper():
                if stem(nxt) in asked:
                    return True
                break
            if nxt.lower() in STOPWORDS:
                break
    return False


def relation(family: frozenset[str], text: str, asked: set[str]) -> str:
    """How a sentence of ``text`` relates someone the question does not name (``asked``: the
    stems of its words) to what it asks about by the act of ``family``: 'act' when it words
    the act (the family's verb or agent noun: "created by David Korn", "Ann Carr wrote…",
    "the author of OttoPDF"), 'by' when only a *by* or *due to* phrase or a possessive
    relates them ("copyright by the Free Software Foundation", "Plauger's book Software
    Tools"), '' when nothing does."""
    found = ""
    for sentence in sentences(text) or [text]:
        tokens = words(_BY_IN_WORD.sub("-", sentence))  # 'word-by-word', 'step-by-step'
        by = _by(tokens, family, asked)
        if by == "act" or _active(tokens, family, asked) or _agent_noun(tokens, family, asked):
            return "act"
        if by or _possessive(tokens, asked):
            found = "by"
    return found


def relates(family: frozenset[str], text: str, asked: set[str]) -> bool:
    """Whether a sentence of ``text`` relates someone the question does not name (``asked``:
    the stems of its words) to what it asks about by the act of ``family``."""
    return bool(relation(family, text, asked))
