"""Finding a sentence's subject for the offline extractor, and the sentences without one.

A subject is a capitalised noun phrase, a list of them ("Hale, Mott and Rook"), a name with
its kind after it ("The Skarra vole is…"), the name an opening description is followed by
("Its highest hill, Ben Corra, rises…"), a pronoun (the previous sentence's subject) or a
definite description that a name read shortly before ends with ("The bridge has five
arches" after "the Marrowby Bridge"). A sentence without one may still state something:
"The capital of Skarra is Port Ellis" (Port Ellis is the capital of Skarra) and a passive
with a lower-case subject ("The chapel of Saint Ronan was built by monks from Iona").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trustgraph_flow.llm.extract_clause import (
    Read,
    active_facts,
    is_cap,
    noun_phrase,
    passive_facts,
    phrase,
)
from trustgraph_flow.llm.extract_complement import is_word
from trustgraph_flow.llm.extract_kinds import Kinds, is_noun
from trustgraph_flow.llm.extract_owned import GENITIVE, owned_subject
from trustgraph_flow.llm.extract_title import OPEN_QUOTES, defined_term, is_the_text
from trustgraph_flow.llm.extract_tokens import past_version
from trustgraph_flow.llm.extract_verbs import ADVERBS, AUXILIARIES, looks_verb
from trustgraph_flow.llm.extract_words import ARTICLES, CLAUSE_WORDS, COPULAS, PRONOUNS
from trustgraph_flow.llm.text import STOPWORDS

Fact = tuple[str, str, str, bool]
RECENT_NAMES = 12  # names a definite description may refer back to
POSSESSIVES = frozenset({"its", "his", "her", "their"})
OF_NAME = frozenset({"of", "in", "at", "on"})  # 'chapel of Saint Ronan', 'school in Brant'
PLACE_WORDS = frozenset({"in", "on", "at", "under", "inside"})
MAX_PLACE = 4  # tokens of a subject's phrase of place


@dataclass
class Memory:
    """What the sentences before said: the last subjects, and the names used lately."""

    subjects: list[str] = field(default_factory=list)  # what 'he', 'she', 'they' stand for
    thing: list[str] = field(default_factory=list)  # what 'it' stands for
    names: list[str] = field(default_factory=list)
    described: bool = False  # this sentence's subject is a definite description's
    owned: bool = False  # this sentence's subject is a thing its owner is named with
    kinds: Kinds = field(default_factory=Kinds)  # what the text says its names are
    title: str = ""  # the name the text's title line gives it: what 'This License' is

    def heard(self, subjects: list[str], facts: list[Fact]) -> None:
        """After a sentence: 'The medal is awarded…' makes the medal 'it', not 'she'."""
        if not self.owned:  # "Its market… Its mayor…": 'its' is still the town
            self.thing = subjects
        if not self.described:
            self.subjects = subjects
        self.described = self.owned = False
        for s, _, o, literal in facts:
            self.names += [s] if literal else [s, o]
        self.names = self.names[-RECENT_NAMES:]
        self.kinds.learn(facts)

    def mentioned(self, tokens: list[str]) -> None:
        """The names of two words or more a sentence uses, stating something or not: 'the
        museum' after 'Walkers visit the Penrith Museum of Clocks' is that one."""
        i = 0
        while i < len(tokens):
            capital = is_cap(tokens[i]) and tokens[i].lower() not in STOPWORDS
            end = noun_phrase(tokens, i) if capital else i
            if end - i > 1:
                found = phrase(tokens, i, end)
                self.names = [n for n in self.names if n != found] + [found]
            i = max(end, i + 1)
        self.names = self.names[-RECENT_NAMES:]

    def named(self, noun: str) -> str | None:
        """The latest name ending in ``noun`` ('bridge' → 'Marrowby Bridge'), else the one
        name the text says is a ``noun`` ('town' → 'Marrowby', a market town)."""
        want = noun.lower()
        return next(
            (
                n
                for n in reversed(self.names)
                if " " in n and is_cap(n) and n.partition(" of ")[0].split()[-1].lower() == want
            ),
            None,
        ) or self.kinds.only(want)


def _list(tokens: list[str], first: str, end: int) -> tuple[list[str], int]:
    """A list of names after the first ("Hale, Mott and Rook")."""
    found = [first]
    while True:
        j = end + (end < len(tokens) and tokens[end] == ",")
        j += j < len(tokens) and tokens[j].lower() == "and"
        j += j < len(tokens) and tokens[j].lower() in ARTICLES
        k = noun_phrase(tokens, j) if j > end else j
        if k == j:
            return found, end
        found.append(phrase(tokens, j, k))
        end = k


def kind_after(tokens: list[str], end: int) -> int:
    """'The Skarra vole is…': up to two lower-case words between a name and its verb."""
    for width in (1, 2):
        words = tokens[end : end + width]
        verb = end + width
        if len(words) < width or verb >= len(tokens):
            return end
        if any(not w.isalpha() or not w.islower() or not is_noun(w) for w in words):
            return end
        if looks_verb(tokens[verb]):
            return verb
    return end


def _named_after(tokens: list[str]) -> tuple[list[str], int]:
    """'Its highest hill, Ben Corra, rises…': the name between commas after an opening."""
    if "," not in tokens[:8]:
        return [], 0
    j = tokens.index(",") + 1
    k = noun_phrase(tokens, j)
    if k > j and k + 1 < len(tokens) and tokens[k] == "," and looks_verb(tokens[k + 1]):
        return [phrase(tokens, j, k)], k + 1
    return [], 0


def subjects(tokens: list[str], memory: Memory) -> tuple[list[str], int]:
    """The sentence's subjects and where what follows them starts ([] when there is none)."""
    if not tokens:
        return [], 0
    first = tokens[0].lower()
    if first in OPEN_QUOTES:
        return defined_term(tokens)
    if first in ARTICLES and len(tokens) > 1 and tokens[1] in OPEN_QUOTES:
        found, end = defined_term(tokens[1:])  # 'A "covered work" means…'
        return found, end + bool(found)
    if first in PRONOUNS:
        return (memory.thing if first == "it" else memory.subjects), 1
    if first in POSSESSIVES:
        named = _named_after(tokens)
        if named[0]:
            return named
        owner = memory.thing if first == "its" else memory.subjects
        return _owned(tokens, 1, owner, memory)
    if first in CLAUSE_WORDS:
        return [], 0  # "Since pmount…", "When Hale died…": a subordinate clause's start
    if first == "this" and is_the_text(memory.title, tokens):  # "This License is…"
        return [memory.title], 2
    start = 1 if first in ARTICLES else 0
    if start and len(tokens) > 2 and tokens[1].islower() and tokens[1].endswith(GENITIVE):
        name = memory.named(tokens[1][:-2])  # "The town's water comes from…"
        return _owned(tokens, 2, [name] if name else [], memory)
    if start and len(tokens) > 2 and tokens[1].islower() and looks_verb(tokens[2]):
        name = memory.named(tokens[1])  # "The bridge has…"
        memory.described = bool(name)
        return ([name], 2) if name else ([], 0)
    end = past_version(tokens, noun_phrase(tokens, start), AUXILIARIES)  # "GNU Make 4.4 was…"
    if end == start or phrase(tokens, start, end).lower() in STOPWORDS:
        return [], 0
    if tokens[end - 1].endswith(GENITIVE):  # "Ada Byrne's portrait of the king was…"
        return _owned(tokens, end, [phrase(tokens, start, end)[:-2]], memory)
    kind = kind_after(tokens, end)
    kind = kind if kind > end else _place_after(tokens, end)
    if kind > end:
        return [phrase(tokens, start, kind)], kind
    return _list(tokens, phrase(tokens, start, end), end)


def _owned(
    tokens: list[str], start: int, owner: list[str], memory: Memory
) -> tuple[list[str], int]:
    """A thing named with its one owner (``extract_owned``); the owner stays what 'she' or
    'it' stands for."""
    found, end = owned_subject(tokens, start, owner)
    if found:
        memory.described = memory.owned = True
    return found, end


def _place_after(tokens: list[str], end: int) -> int:
    """'Mailboxes in /var/mail are owned…': a short phrase of place (no number, no comma)
    between a name and 'is', 'are', 'was' or 'were' is the subject's own; where that verb is
    (else ``end``)."""
    if end + 2 >= len(tokens) or tokens[end].lower() not in PLACE_WORDS:
        return end
    for i in range(end + 1, min(len(tokens), end + 1 + MAX_PLACE)):
        token = tokens[i]
        if token.lower() in COPULAS:
            return i if i > end + 1 and tokens[i - 1].lower() not in STOPWORDS else end
        if not (is_word(token) or token[:1] == "/") or token[:1].isdigit() or looks_verb(token):
            return end
    return end


def _lower_subject(tokens: list[str], start: int) -> int:
    """The end of a lower-case subject ('old bridge', 'chapel of Saint Ronan')."""
    i = start
    while i < len(tokens) and i - start < 4 and tokens[i].islower() and tokens[i] not in STOPWORDS:
        i += 1  # "first published algorithm": a participle may describe it
    if i > start and i + 1 < len(tokens) and tokens[i] in OF_NAME and is_cap(tokens[i + 1]):
        i = noun_phrase(tokens, i + 1)  # "first school in Brant"
    return i


def without_subject(tokens: list[str]) -> list[Fact]:
    """What a sentence with a lower-case subject states: 'The capital of Skarra is Port
    Ellis' (Port Ellis is the capital of Skarra; 'The height of Ben Corra is 487 metres':
    Ben Corra has height of 487 metres) or a passive ('The printing press was invented by
    Gutenberg': Gutenberg invented the printing press)."""
    start = 1 if tokens and tokens[0].lower() in ARTICLES else 0
    end = _lower_subject(tokens, start)
    if end == start or end >= len(tokens):
        return []
    subject = phrase(tokens, start, end)
    if tokens[end].lower() in COPULAS and " of " in f" {subject} ":
        noun, _, owner = subject.partition(" of ")
        nxt = end + 1 + (end + 1 < len(tokens) and tokens[end + 1].lower() in ARTICLES)
        if nxt < len(tokens) and is_cap(tokens[nxt]) and is_cap(owner):
            other = phrase(tokens, nxt, noun_phrase(tokens, nxt))
            return [(other, f"{tokens[end].lower()} the {noun} of", owner, False)]
        if nxt < len(tokens) and tokens[nxt][:1].isdigit() and is_cap(owner):
            unit = tokens[nxt + 1] if nxt + 1 < len(tokens) and tokens[nxt + 1].isalpha() else ""
            value = (
                f"{tokens[nxt]} {unit}" if unit and unit not in STOPWORDS | ADVERBS else tokens[nxt]
            )
            return [(owner, f"has {noun} of", value, True)]
    if not all(is_word(w) for w in tokens[start:end]):
        return []
    read = passive_facts(subject, tokens, end)
    if read is None and any(is_cap(w) for w in subject.split()):
        read = active_facts(subject, tokens, end)  # "The population of Ledbury grew to…"
    return read.facts if isinstance(read, Read) else []
