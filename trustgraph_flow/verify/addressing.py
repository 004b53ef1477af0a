"""Whether an answer addresses its question: the offline engine's relevance check of the
answer itself (docs/rag.md, "Verification and abstention"), a heuristic like the claim check.

The claim check asks whether each sentence of the answer is stated by the evidence it cites,
and ``relevant`` whether that evidence speaks of the question; neither asks whether the
sentence *answers* it. On a new user's manual, "Who wrote bzip2?" was answered "bzip2 will
decline to write compressed output to a terminal": every word of it in its evidence, and the
evidence about bzip2, but no one named. So the answer must give the kind of thing the question
asks for (``support.asks``, the kinds the offline answerer prefers too), in one of its
sentences at least:

- *who* / *where*: a name the question does not hold (``named``), or a content
  word after ``by`` the question does not hold ("owned by group mail", "by this user"; not
  an act: "by moving the cursor"); for
  *where*, also a place: a content word the question does not hold after a preposition of
  place, directly or after an article, and not opening the sentence ("lives in the forest",
  "hired at the pier"; not "In this case, …"), or an address: a web or FTP URL, a mail
  address ("Report bugs to bug-ed@gnu.org");
- *when*: a year or a month (``has_kind``), or a number, a day of the week or a season; a
  version is no time ("This manual page pertains to version 1.0.8", "bzip2-0.1", "v2":
  ``_VERSION``), so its number does not count;
- *how many / much / long / high …*: a number, in digits or in words (a word that starts
  with a digit: not "BZ2_bzDecompress").

A *who* question about making or founding something ("Who founded Facebook?", ``agency.act``)
is addressed only by a sentence that also relates someone to it by that act or one of its
agentive forms ("by X", "X's book …", "its author", ``agency.relates``): "Zstandard is …
deployed within Facebook" names Zstandard but says nothing of who founded Facebook.

A question of another shape (*what*, *which*, *how* alone) is not checked here: the answer
need not repeat what kind of thing is asked for ("Which animal…?" — "The Skarra vole…"), and
words cannot tell an algorithm from a file name.

A name is a run of capitalised words, as the answerer reads them (``name_runs``), less the
words that only look like one: the capitalised first word of a sentence when the answer or
its evidence also writes it in lower case ("Note that…" beside "see the note"), a pronoun the
extractor never takes for a thing ("Everyone is permitted…", ``JUNK``), a word linking the
sentence to the one before ("Instead of…", ``LINKS``), an abbreviation
("Inc.", ``prose.ABBREVIATIONS``) and a month or a day ("29 June 2007": a time). A copyright notice names its holder only (read as the
extractor reads it, ``extract_notice``): asked who founded the Free Software Foundation,
"Copyright (C) 2007 Free Software Foundation, Inc." names no one the question does not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from urllib.parse import urlsplit

from trustgraph_flow.llm.agency import act, relates
from trustgraph_flow.llm.dates import MONTHS
from trustgraph_flow.llm.extract_notice import notice_facts
from trustgraph_flow.llm.extract_words import JUNK
from trustgraph_flow.llm.prose import ABBREVIATIONS
from trustgraph_flow.llm.question_keys import name_runs
from trustgraph_flow.llm.support import asks, has_kind, places
from trustgraph_flow.llm.text import STOPWORDS, content_words, sentences, stem, words
from trustgraph_flow.verify.heuristic import NUMBER_WORDS

LARGE_NUMBERS = frozenset(
    "thirty forty fifty sixty seventy eighty ninety hundred thousand million billion "
    "dozen half".split()
)
TIMES = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday spring summer autumn winter "
    "century decade daily weekly monthly yearly annually".split()
)
AGENT_MARKS = frozenset({"by"})
# A word that opens a sentence to link it to the one before ("Instead of altering a file…").
LINKS = frozenset(
    "instead otherwise therefore nevertheless nonetheless meanwhile besides hence "
    "accordingly consequently likewise similarly finally first second third".split()
)
# name_runs gives stems; a month or a day is a time, not a name
_NOT_NAMES = frozenset(stem(w) for w in JUNK | ABBREVIATIONS | MONTHS | TIMES | LINKS)
WHY = {  # why an answer does not address a question of each kind
    "name": "the question asks who or where, and no sentence of the answer names anyone or "
    "anything the question does not",
    "year": "the question asks when, and no sentence of the answer says a time",
    "number": "the question asks for an amount, and no sentence of the answer gives a number",
    "act": "the question asks who {verb} it, and no sentence of the answer says who did: none "
    "relates anyone to it by that act, a 'by' phrase, an author or founder, or a possessive",
}


# A version: a number after "version" or "release" ("version 2", "release 1.4"), one with
# two dots or more ("1.0.8"), or one joined to a name by a hyphen or a "v" ("bzip2-0.1", "v2").
_VERSION = re.compile(
    r"\b(?:versions?|releases?)\s+\d[\d.]*|\b\d+(?:\.\d+){2,}\b|[^\W\d_][\w]*-\d[\d.]*|\bv\d[\d.]*",
    re.IGNORECASE,
)


def _numbered(low: list[str]) -> bool:
    """A number: a word that starts with a digit ("212", "900k", "1.0.8"; not "BZ2"), or a
    number word."""
    return any(w[:1].isdigit() or w in NUMBER_WORDS or w in LARGE_NUMBERS for w in low)


def _agents(low: list[str]) -> list[str]:
    """The first content word after each ``by`` ("owned by this user": user), unless it is
    an act ("by moving the cursor"), as after a preposition of place (``support.places``)."""
    out = []
    for i, word in enumerate(low):
        if word in AGENT_MARKS:
            after = [w for w in low[i + 1 : i + 3] if w not in STOPWORDS][:1]
            out += [w for w in after if not w.endswith("ing")]
    return out


def lowered(texts: Sequence[str]) -> set[str]:
    """The words ``texts`` write in lower case: a capitalised one among them is common."""
    return {w for text in texts for w in words(text) if w[:1].islower()}


def named(claim: str, asked: set[str], common: AbstractSet[str] = frozenset()) -> bool:
    """Whether ``claim`` names someone or something the question does not (``asked``: its
    stems): a word of a name run that is no sentence's common first word (``common``: the
    words written in lower case around it), pronoun or abbreviation; of a copyright notice,
    a word of its holder's name."""
    for sentence in sentences(claim):
        notice = notice_facts(sentence)
        if notice:
            if any(stem(w) not in asked for w in words(notice[0][0])):
                return True
            continue
        first = words(sentence)[:1]
        opening = stem(first[0]) if first and first[0].lower() in common else ""
        for run in name_runs(sentence):
            if any(w != opening and w not in _NOT_NAMES and w not in asked for w in run):
                return True
    return False


def gives(
    kind: str,
    claim: str,
    asked: set[str],
    where: bool = False,
    common: AbstractSet[str] = frozenset(),
) -> bool:
    """Whether ``claim`` gives the ``kind`` of answer asked for (``asked``: the stems of the
    question's content words; ``where``: the question asks where, so a place answers;
    ``common``: words its evidence writes in lower case, ``named``)."""
    low = [w.lower() for w in words(claim)]
    if kind == "number":
        return _numbered(low)
    if kind == "year":
        unversioned = [w.lower() for w in words(_VERSION.sub(" ", claim))]
        return has_kind(kind, claim, asked) or _numbered(unversioned) or bool(TIMES & set(low))
    if kind == "name":
        marked = _agents(low) + (places(low) if where else [])
        if where and _addressed(claim):
            return True
        return named(claim, asked, common) or any(stem(w) not in asked for w in marked)
    return True


def _addressed(claim: str) -> bool:
    """Whether ``claim`` gives an address, which answers *where* ("Report bugs to
    bug-ed@gnu.org", "Ed home page: http://www.gnu.org/…"): a web or FTP URL with a host, or
    a mail address (a local part, then a domain with a dot)."""
    for token in claim.split():
        token = token.strip("<>()[]\"'.,;:")
        try:
            url = urlsplit(token)
        except ValueError:  # "http://[::1": no URL
            url = urlsplit("")
        if url.scheme in ("http", "https", "ftp") and url.netloc:
            return True
        local, at, domain = token.rpartition("@")
        if at and local and "." in domain.strip("."):
            return True
    return False


def unaddressed(question: str, claims: Sequence[str], evidence: Sequence[str] = ()) -> str | None:
    """Why no sentence of the answer addresses ``question`` (None: one does, or the question
    is of a shape not checked); ``evidence``: the texts the answer cites."""
    kind = asks(question)
    said = [c for c in claims if c.strip()]
    if not kind or not said:
        return None
    asked = {stem(w) for w in content_words(question)}
    where = "where" in {w.lower() for w in words(question)}
    common = lowered([*said, *evidence])
    giving = [c for c in said if gives(kind, c, asked, where, common)]
    verb, family = act(question) if kind == "name" else ("", frozenset())
    if family and giving and not any(relates(family, c, asked) for c in giving):
        return WHY["act"].format(verb=verb)
    return None if giving else WHY[kind]
