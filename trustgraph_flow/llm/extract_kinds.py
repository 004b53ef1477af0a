"""What kind of thing a name is, as the text itself says, for reading definite descriptions.

"Marrowby is now a market town" makes Marrowby a town, and "Wren, a wool merchant from
Carlisle" makes Wren a merchant: the head noun of what a copula or an apposition says the
name is. A definite description ("The town was founded by Tobias Wren") then stands for the
one name of that kind the text knows; two names of one kind leave it unread. The kinds are
the facts' own, so they are learned from the edges read (``is a market town of about`` →
town), in a first pass over the text when a description came before the sentence naming its
kind.
"""

from __future__ import annotations

from trustgraph_flow.llm.extract_verbs import ADVERBS, NEGATIONS, looks_verb
from trustgraph_flow.llm.extract_words import ARTICLES, COPULAS
from trustgraph_flow.llm.text import STOPWORDS

Fact = tuple[str, str, str, bool]


def is_noun(word: str) -> bool:
    """Whether a lower-case word may be a noun ('vole'), not a verb, adverb or stopword."""
    return not (
        word in STOPWORDS
        or word in ADVERBS
        or word in NEGATIONS
        or word.endswith("ly")
        or looks_verb(word)
    )


def common_noun(tokens: list[str], start: int) -> int:
    """The end of up to three lower-case nouns from ``start`` ('squid', 'news spool')."""
    end = start
    while end < len(tokens) and end - start < 3:
        word = tokens[end]
        if not (word.isalpha() and word.islower() and is_noun(word)):
            break
        end += 1
    return end


def _head(words: list[str]) -> str | None:
    """The last of the leading lower-case nouns ('market town of about' → 'town')."""
    head = None
    for word in words:
        if not (word.isalpha() and word.islower() and is_noun(word)):
            break
        head = word
    return head


def kind_of(fact: Fact) -> tuple[str, str] | None:
    """(name, kind) when the fact says what a name is: 'Marrowby | is a market town of about
    | 9,400 people' → (Marrowby, town); 'Jonah Mott | is a | printer' → (Jonah Mott, printer)."""
    s, p, o, literal = fact
    words = p.split()
    if len(words) < 2 or words[0] not in COPULAS or words[1] not in ARTICLES:
        return None
    if not s or not all(w[:1].isupper() for w in s.split()):
        return None  # a name's kind, not a description's
    rest = words[2:]
    head = _head(rest) if rest else (None if literal else _head(o.split()[-1:]))
    return (s, head) if head else None


class Kinds:
    """The names the text says are of each kind."""

    def __init__(self) -> None:
        self.names: dict[str, set[str]] = {}
        self.wanted: set[str] = set()  # descriptions that found no name (yet)

    def learn(self, facts: list[Fact]) -> None:
        for fact in facts:
            found = kind_of(fact)
            if found is not None:
                self.names.setdefault(found[1], set()).add(found[0])

    def only(self, noun: str) -> str | None:
        """The one name of kind ``noun`` (None: none, or more than one)."""
        names = self.names.get(noun, set())
        if len(names) != 1:
            self.wanted.add(noun)
            return None
        return next(iter(names))

    def named_later(self) -> bool:
        """Whether a description that found no name has one now (a second pass reads it)."""
        return any(len(self.names.get(noun, ())) == 1 for noun in self.wanted)
