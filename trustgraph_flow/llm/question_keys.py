"""What makes a question distinct, for the offline engine's choice of an answer (issue 29,
abstention): the words and names a piece of evidence must hold to answer it at all.

Each of the question's names and other content words (its *keys*) is weighed by how few
sentences of the evidence hold it: the rarer, the more it says what this question is about.
A piece must hold (itself or in the sentences it leans on) the most distinctive key, and the
next one too unless half the sentences or more hold that: "What is the capital of Peru?" is
answered neither by "Lisbon is the capital of Portugal" nor by "Our guide had grown up in
Peru"; "Who designed the Eiffel Tower?" not by "The Eiffel Tower stands in Paris" nor by
"Maxwell designed the Blackpool Tower". A key half the sentences hold is what the evidence is
about, and may be left to it ("Who is the licence steward of the Tarn Licence?" is answered
by "Tarn Foundation is the licence steward", in the licence itself).

A piece names a name in full, by part of it ("Quist" for "Orla Quist", never by a longer
name: "the Blackpool Tower" is not "the Eiffel Tower"), or by its most telling word — the
word of it fewest sentences hold ("Mozilla" of "the Mozilla Public License", not "License").
Left out of the weighing: a word saying what kind of answer is wanted ('how *high*', 'which
*animal*': the answer need not repeat it) and a word no sentence holds (a relation may be
worded otherwise; a name no sentence names is left to the excerpt).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache

from trustgraph_flow.llm.text import STOPWORDS, stem, words

Name = tuple[str, ...]  # the stems of a name's words
Key = str | Name  # a word's stem, or a name
COMMON = math.log(1 + 1 / 0.5)  # the weight of a key half the sentences hold, or more
WH_KINDS = frozenset({"how", "what", "which"})  # 'how high', 'which animal', 'what kind of'
_BREAKS = re.compile(r"[()\[\]{},;:\"“”]")  # what ends a name's run of words


@lru_cache(maxsize=4096)
def stems_of(text: str) -> frozenset[str]:
    """The stems of ``text``'s words. Kept per text: the same chunk is read for each of its
    sentences and edges. Words never span a space, so the stems of ``f"{a} {b}"`` are
    ``stems_of(a) | stems_of(b)``."""
    return frozenset(stem(w) for w in words(text))


def name_runs(text: str, skip_first: bool = False) -> list[Name]:
    """Runs of capitalised words (stems), leading stopwords dropped: the names ``text`` uses.
    A bracket, a quote, a comma or a colon ends a run: "Cyclic Redundancy Checks (CRCs)"
    names Cyclic Redundancy Checks, and its short form apart."""
    found = [w for part in _BREAKS.split(text) for w in [*words(part), ""]]
    found = found[1:] if skip_first and found and found[0] else found
    runs: list[Name] = []
    run: list[str] = []
    for word in [*found, ""]:
        if word[:1].isupper():
            if run or word.lower() not in STOPWORDS:
                run.append(stem(word))
            continue
        if run:
            runs.append(tuple(run))
        run = []
    return runs


@lru_cache(maxsize=4096)
def runs_of(text: str) -> frozenset[Name]:
    """The names ``text`` uses (``name_runs``), as a set. Kept per text, as ``stems_of``:
    each piece's text and context are read for its credits and again for its keys."""
    return frozenset(name_runs(text))


def same_name(name: Name, runs: AbstractSet[Name]) -> bool:
    """Whether ``runs`` name ``name``: in full, or by part of it ("Quist" for "Orla Quist"),
    never by a longer name ("the Marrowby Society" is not Marrowby)."""
    return any(
        run == name[i : i + len(run)] for run in runs for i in range(len(name) - len(run) + 1)
    )


class Evidence:
    """What each sentence of the evidence says (``sentences``: each with the context it is
    read with), to weigh a question's keys and a piece against them."""

    def __init__(self, names: Sequence[Name], sentences: Sequence[tuple[str, str]]) -> None:
        self.names = list(names)
        read = [(stems_of(t) | stems_of(c), runs_of(t) | runs_of(c)) for t, c in sentences]
        self.telling = {  # each name's word fewest sentences hold
            n: min(n, key=lambda w: sum(w in s for s, _ in read)) for n in self.names
        }
        self.said = [self._keys_of(s, r) for s, r in read]

    def _keys_of(self, held: frozenset[str], runs: AbstractSet[Name]) -> set[Key]:
        named = [n for n in self.names if same_name(n, runs) or self.telling[n] in held]
        return {*held, *named}

    def of(self, text: str, context: str = "") -> set[Key]:
        """What a piece (``text`` read with its ``context``) says."""
        return self._keys_of(stems_of(text) | stems_of(context), runs_of(text) | runs_of(context))


def answer_kinds(question: str) -> set[str]:
    """The stems of the words right after 'how', 'what' or 'which' that say what kind of
    answer is wanted ('how *high*', 'which *animal*', 'what *kind* of')."""
    low = [w.lower() for w in words(question)]
    return {
        stem(low[i + 1])
        for i, word in enumerate(low[:-1])
        if word in WH_KINDS and low[i + 1] not in STOPWORDS
    }


def question_keys(question: str, content: Sequence[str], evidence: Evidence) -> dict[Key, float]:
    """The question's keys (its names, and its ``content`` words not in them), each with its
    distinctiveness among the sentences of the ``evidence``."""
    kinds = answer_kinds(question)
    named = {w for n in evidence.names for w in n}
    units: list[Key] = [*evidence.names]
    units += [s for s in dict.fromkeys(stem(w) for w in content) if s not in named | kinds]
    out: dict[Key, float] = {}
    for unit in units:
        found = sum(unit in said for said in evidence.said)
        if found:
            out[unit] = math.log(1 + len(evidence.said) / found)
    return out


def distinct_enough(keys: dict[Key, float], held: set[Key]) -> bool:
    """Whether a piece saying ``held`` holds the question's most distinctive key, and the
    next one unless at least half the sentences hold that (what the evidence is about)."""
    top = sorted(keys.values(), reverse=True)[:2]
    need = sum(w for w in top if w == top[0] or w > COMMON)
    return sum(w for k, w in keys.items() if k in held) >= need - 1e-9
