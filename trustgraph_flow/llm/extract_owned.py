"""A subject named by its owner, for the offline extractor: 'Her students included…',
'Its market is held…', 'The town's water comes…', 'Ada Byrne's portrait of the king was
bought…'. The thing owned is the subject, named with its owner ("Orla Quist's students"); a
short phrase after the noun ('her first paper on the salt') is part of it."""

from __future__ import annotations

from trustgraph_flow.llm.extract_clause import is_cap, noun_phrase, phrase
from trustgraph_flow.llm.extract_verbs import ADVERBS, AUXILIARIES, looks_verb
from trustgraph_flow.llm.extract_words import ARTICLES
from trustgraph_flow.llm.text import STOPWORDS

MAX_OWNED = 4  # words of what a possessive names ('her first paper')
MAX_TAIL = 4  # tokens of the phrase after it ('on the salt')
OWNED_TAIL = frozenset({"of", "on", "for", "in", "at", "from", "about"})
GENITIVE = ("'s", "’s")


def owned_subject(tokens: list[str], start: int, owner: list[str]) -> tuple[list[str], int]:
    """The subject owned by the one ``owner``, its noun phrase at ``start``, and where its
    verb is; ([], 0) when there is none (no one owner, no noun, no verb after it)."""
    if len(owner) != 1:
        return [], 0
    end = _owned_noun(tokens, start)
    verb = end if end < len(tokens) and looks_verb(tokens[end]) else _owned_tail(tokens, end)
    if end == start or verb == 0:
        return [], 0
    return [f"{owner[0]}'s {phrase(tokens, start, verb)}"], verb


def _owned_noun(tokens: list[str], start: int) -> int:
    """The end of the lower-case noun phrase after a possessive: a word that looks like a
    verb ('students', 'brothers') is a noun there when a verb follows it."""
    end = start
    while end < len(tokens) and end - start < MAX_OWNED and _plain(tokens[end]):
        if tokens[end] in AUXILIARIES:
            break
        if end > start and looks_verb(tokens[end]):
            nxt = end + 1 < len(tokens) and (
                looks_verb(tokens[end + 1]) or tokens[end + 1].lower() in ADVERBS
            )
            if not nxt:
                break
        end += 1
    return end


def _owned_tail(tokens: list[str], end: int) -> int:
    """Where the verb is after a short phrase of the noun ('on the salt', 'of Tarn'), else 0."""
    if end >= len(tokens) or tokens[end].lower() not in OWNED_TAIL:
        return 0
    k = end + 1 + (end + 1 < len(tokens) and tokens[end + 1].lower() in ARTICLES)
    stop = (
        noun_phrase(tokens, k) if k < len(tokens) and is_cap(tokens[k]) else _owned_noun(tokens, k)
    )
    if stop == k or stop - end > MAX_TAIL + 1 or stop >= len(tokens):
        return 0
    return stop if looks_verb(tokens[stop]) else 0


def _plain(token: str) -> bool:
    return token.isalpha() and token.islower() and token not in STOPWORDS
