"""Reading one clause for the offline extractor: from its verb to its object(s).

A predicate is the lower-case words from the verb up to the next capitalised noun phrase (an
entity), a number (a literal) or, failing those, the verb and the first noun phrase after it.
A passive with its agent is read as the agent's act ("was designed by Casimir Rook" → Casimir
Rook designed …); a list of objects gives one edge each ("exports wool, tin and copper"); a
year after the object gives the act's date ("designed the bridge in 1871").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from trustgraph_flow.llm.dates import date_at
from trustgraph_flow.llm.extract_complement import complement, is_word, object_phrase
from trustgraph_flow.llm.extract_verbs import (
    ADVERBS,
    AUXILIARIES,
    NEGATIONS,
    is_participle,
    looks_verb,
    past_of,
)
from trustgraph_flow.llm.extract_words import (
    ARTICLES,
    CLAUSE_WORDS,
    COPULAS,
)
from trustgraph_flow.llm.text import STOPWORDS

MAX_PREDICATE_WORDS = 8
MAX_OBJECT_WORDS = 3
OBJECTS = frozenset({"them", "it", "him", "her", "us", "me", "you"})  # a verb's, never a noun's
NAME_JOINERS = frozenset({"of", "de", "von", "van", "upon", "la", "le", "du"})


@dataclass(frozen=True)
class Read:
    """What a clause states: (s, p, o, literal) facts, and where the clause ended."""

    facts: list[tuple[str, str, str, bool]]
    end: int


# a program's or a format's name, written in lower case with a digit: 'bzip2', 'libbzip2';
# or a release, a name and its version: 'libffi-3.4.4'
_CODED_NAME = re.compile(r"[a-z]+[0-9][a-z0-9]*|[a-z][a-z0-9+]*-[0-9]+(?:\.[0-9]+)+[a-z0-9]*")


def is_cap(token: str) -> bool:
    """Whether a token can open a name: a capital, or a lower-case word with a digit in it
    ("bzip2 will read arguments from…": a manual writes its program's name as the program
    does, at a sentence's start too; no English word has a digit)."""
    return token[:1].isupper() or bool(_CODED_NAME.fullmatch(token))


def noun_phrase(tokens: list[str], start: int) -> int:
    """The end of the name beginning at ``start``: capitalised words, 'of' between them
    ("University of Leeds")."""
    end = start
    while end < len(tokens) and is_cap(tokens[end]):
        end += 1
        joined = end + 1 < len(tokens) and tokens[end].lower() in NAME_JOINERS
        if joined and is_cap(tokens[end + 1]):
            end += 1
    return end


def phrase(tokens: list[str], start: int, end: int) -> str:
    return " ".join(tokens[start:end])


def _predicate(words: list[str]) -> str:
    kept = [w.lower() for w in words if w.lower() not in ADVERBS - NEGATIONS]
    while kept and kept[-1] in ARTICLES:
        kept = kept[:-1]
    return " ".join(kept)


def _year_after(tokens: list[str], end: int) -> tuple[str, str] | None:
    """'in 1871' (or 'on 3 May 1871') right after an object: (preposition, year)."""
    if end + 1 < len(tokens) and tokens[end].lower() in {"in", "on", "during", "by"}:
        for token in tokens[end + 1 : end + 4]:
            if len(token) == 4 and token.isdigit():
                return tokens[end].lower(), token
    return None


def _more(tokens: list[str], end: int, capital: bool) -> tuple[list[str], int]:
    """Further items of a list after its first ("X, Y and Z"), and where the list ends; an
    item followed by a verb begins a new clause and is no item."""
    items: list[str] = []
    while True:
        j = end
        if j < len(tokens) and tokens[j] == ",":
            j += 1
        if j < len(tokens) and tokens[j].lower() in ("and", "or"):
            j += 1
        if j == end:
            return items, end
        if j < len(tokens) and tokens[j].lower() in ARTICLES:
            j += 1
        if j >= len(tokens) or tokens[j].lower() in STOPWORDS or not is_word(tokens[j]):
            return items, end
        if capital != is_cap(tokens[j]):
            return items, end
        if capital:
            k = noun_phrase(tokens, j)
            item = phrase(tokens, j, k)
            if k < len(tokens) and tokens[k][:1].isdigit():
                return items, end  # "…, Version 2.0": a name's number, no item
        else:
            item, k = object_phrase(tokens, j)
        if not item or (k < len(tokens) and (looks_verb(tokens[k]) or tokens[k] in OBJECTS)):
            return items, end  # "…or provide them with…": a verb and its object, no item
        items.append(item)
        end = k


def _passive(tokens: list[str], start: int) -> Read | None:
    """'(has been|was) [adverbs] designed [and built] by [the] Agent[, Agent2 and Agent3]':
    the agents' act, with an empty object the caller fills in with the subject."""
    j = start
    if j < len(tokens) and tokens[j].lower() in COPULAS | {"be"}:
        j += 1
    elif j + 1 < len(tokens) and tokens[j].lower() in {"has", "have", "had"}:
        j += 2 if tokens[j + 1].lower() == "been" else len(tokens)
    else:
        return None
    while j < len(tokens) and tokens[j].lower() in ADVERBS - NEGATIONS:
        j += 1
    if j + 2 >= len(tokens) or not is_participle(tokens[j]):
        return None
    by = j + 1
    if tokens[by].lower() in ("and", "or") and by + 2 < len(tokens) and is_word(tokens[by + 1]):
        by += 2  # "owned and writable by", "designed and built by": the first one's act
    if tokens[by].lower() in ("every", "each") and by + 2 < len(tokens):
        by += 2  # "is awarded every year by"
    when = _year_after(tokens, by)  # "designed in 1871 by Casimir Rook"
    if when is not None:
        by = tokens.index(when[1], by) + 1
        by += by < len(tokens) and tokens[by] == "s"  # "in the 1780s by"
    if by + 1 >= len(tokens) or tokens[by].lower() != "by":
        return None
    k = by + 1 + (tokens[by + 1].lower() in ARTICLES)
    if k >= len(tokens) or not is_word(tokens[k]):
        return None
    verb = past_of(tokens[j])
    k = _named_after_title(tokens, k)  # "by the London architect Amos Hart"
    if not is_cap(tokens[k]):  # "by monks from Iona"
        agent, end = object_phrase(tokens, k)
        if agent and end + 1 < len(tokens) and tokens[end] in ("from", "of"):
            name = end + 1 + (end + 2 < len(tokens) and tokens[end + 1].lower() in ARTICLES)
            if is_cap(tokens[name]):  # "by the members of the Wey Society"
                close = noun_phrase(tokens, name)
                agent, end = f"{agent} {tokens[end]} {phrase(tokens, name, close)}", close
        return Read([(agent, verb, "", False)], end) if agent else None
    end = noun_phrase(tokens, k)
    more, end = _more(tokens, end, capital=True)
    agents = [phrase(tokens, k, noun_phrase(tokens, k)), *more]
    return Read([(agent, verb, "", False) for agent in agents], end)


def _named_after_title(tokens: list[str], k: int) -> int:
    """Where the name is after a role before it ('the engineer Casimir Rook', 'the London
    architect Amos Hart': one or two lower-case words, a place before them), else ``k``."""
    i = noun_phrase(tokens, k) if is_cap(tokens[k]) else k
    for width in (1, 2):
        role = tokens[i : i + width]
        name = i + width
        if len(role) < width or name >= len(tokens) or not is_cap(tokens[name]):
            continue
        if all(w.isalpha() and w.islower() and w not in STOPWORDS for w in role):
            return name
    return k


def passive_facts(subject: str, tokens: list[str], start: int) -> Read | None:
    """A passive clause about ``subject`` read as its agents' act (and its year, if any)."""
    read = _passive(tokens, start)
    if read is None:
        return None
    facts = [(s, p, subject, False) for s, p, _, _ in read.facts]
    after = _year_after(tokens, read.end)
    end = read.end if after is None else tokens.index(after[1], read.end) + 1
    year = after or next(
        (y for i in range(start, read.end) if (y := _year_after(tokens, i)) and y[0] != "by"),
        None,
    )
    if year is not None:
        s, p, o, _ = facts[0]
        facts.append((s, f"{p} {o} {year[0]}", year[1], True))
    return Read(facts, end)


def active_facts(subject: str, tokens: list[str], start: int) -> Read | None:
    """The facts of the clause whose verb is ``tokens[start]`` (None: it states nothing)."""
    negated = start + 1 < len(tokens) and tokens[start].lower() in NEGATIONS
    if start >= len(tokens) or not looks_verb(tokens[start + negated]):
        return None
    if negated:  # "never designed the mill": the act, denied
        read = active_facts(subject, tokens, start + 1)
        if read is None:
            return None
        denied = [(s, f"{tokens[start].lower()} {p}", o, lit) for s, p, o, lit in read.facts]
        return Read(denied, read.end)
    passive = passive_facts(subject, tokens, start)
    if passive is not None:
        return passive
    p, o, end, literal = "", "", start, False
    for i in range(start, min(len(tokens), start + MAX_PREDICATE_WORDS + 1)):
        token = tokens[i]
        if not is_word(token) or token.lower() in CLAUSE_WORDS:
            break  # a predicate never runs into the next clause
        p = _predicate(tokens[start:i])
        date = date_at(tokens, i) if p else None
        if date is not None:  # "was released on October 23, 2022": the whole date
            o, end, literal = date[0], date[1], True
            break
        if is_cap(token) and p and token.lower() not in NEGATIONS:  # 'is NOT the dc language'
            end = noun_phrase(tokens, i)
            o = phrase(tokens, i, end)
            break
        if token[0].isdigit() and p:
            unit = tokens[i + 1] if i + 1 < len(tokens) and tokens[i + 1].isalpha() else ""
            keep = unit and unit.lower() not in STOPWORDS
            o, end, literal = (f"{token} {unit}" if keep else token), i + 1 + bool(keep), True
            break
    if not o:
        found = complement(tokens, start)
        if found is None:
            return None
        p, o, end, literal = found
    if not literal and end < len(tokens) and tokens[end].lower() in AUXILIARIES:
        return None  # '"t" means the transformation is obtained by…': a clause, no object
    items = [o]
    if not literal:
        more, end = _more(tokens, end, capital=is_cap(o))
        items += more
    facts = [(subject, p, item, literal) for item in items]
    year = None if literal else _year_after(tokens, end)
    if year is not None:
        facts.append((subject, f"{p} {o} {year[0]}", year[1], True))
        end = tokens.index(year[1], end) + 1  # "…in 1890 and died there in 1921"
    return Read(facts, end)
