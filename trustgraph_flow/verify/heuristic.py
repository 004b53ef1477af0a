"""The deterministic claim check (the offline engine's verifier; docs/rag.md, "Verification").

A claim is checked against the passage of each text it cites that holds most of its words
(``verify.passages``: a few consecutive sentences, not the whole text), by what it is made of:

- **names** (capitalised words) and **numbers** (digits or number words) must all be in
  the evidence; a number the evidence states differently in the claim's own sentence is a
  contradiction;
- **content words** (light stems, stopwords dropped): at least ``SUPPORTED_AT`` of them in
  the evidence, and every *salient* one: a content word may be missing only when it words
  the relation (a verb: "drawn" for "designed") or qualifies it (an adverb), never when it
  names what the claim is about ("the marsh owl" is not "the marsh harrier");
- **negation**: the claim and the evidence sentence that best matches it must agree on
  ``not``/``never``/``n't``: otherwise a contradiction.

A claim that cites nothing, or whose evidence has no text (removed since), is never
supported. It is a heuristic (``METHOD``), and every assessment says so: it reads words,
not meaning ("Paris is not far from France" and "Paris is far from France" differ only in
negation, which it sees; a paraphrase with other words it does not).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from trustgraph_flow.llm.extract_verbs import (
    ADVERBS,
    AUXILIARIES,
    BASE_VERBS,
    IRREGULAR_PAST,
    PARTICIPLE_PAST,
)
from trustgraph_flow.llm.text import FUNCTION_WORDS, STOPWORDS, sentences, stem, words
from trustgraph_flow.verify.passages import best_passages

Verdict = Literal["supported", "not-supported", "contradicted", "unverified"]
VERDICTS: tuple[Verdict, ...] = ("supported", "not-supported", "contradicted", "unverified")
METHOD = "heuristic"  # content words, numbers, names, negation: no model reads the claim
SUPPORTED_AT = 0.7  # share of a claim's content words its evidence must hold
RELEVANT_AT = 0.5  # share of a question's content words the evidence must hold

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
NEGATIONS = frozenset("not no never none nobody nothing neither nor cannot without".split())
NUMBER_WORDS = {
    w: str(n)
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
# Capitalised at a sentence's start without being a name.
_NOT_NAMES = frozenset({"it", "its", "they", "he", "she", "this", "that", "there", "yes"})


@dataclass(frozen=True)
class Assessment:
    """One claim's verdict, its score (share of its content words found, 0..1) and why."""

    verdict: Verdict
    score: float
    reason: str
    method: str = METHOD

    @property
    def supported(self) -> bool:
        return self.verdict == "supported"


def _norm(word: str) -> str:
    """A word's light stem: 'capitals'/'capital', 'designed'/'design', 'built'/'built'."""
    word = stem(word.lower().replace("’", "'"))
    for suffix in ("ing", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


@lru_cache(maxsize=4096)  # each claim reads every text of its evidence
def _numbers(text: str) -> frozenset[str]:
    found = {n.replace(",", "") for n in _NUMBER.findall(text)}
    found |= {NUMBER_WORDS[w] for w in words(text.lower()) if w in NUMBER_WORDS}
    return frozenset(found)


def _negated(text: str) -> bool:
    said = words(text.lower().replace("’", "'"))
    return any(w in NEGATIONS or w.endswith("n't") for w in said)


def _content(text: str) -> dict[str, str]:
    """The claim's content words by stem (in order, once each; the value the word as
    written, lower-cased): no stopword, number or negation."""
    seen: dict[str, str] = {}
    for word in words(text.lower()):
        if word in STOPWORDS or word in NEGATIONS or word in NUMBER_WORDS or word.isdigit():
            continue
        seen.setdefault(_norm(word), word)
    return seen


def _relational(word: str) -> bool:
    """Whether a (lower-case) content word words or qualifies a relation — a verb form or an
    adverb — rather than naming a thing or its quality: the only kind a supported claim may
    word otherwise than its evidence."""
    if word in ADVERBS or word in AUXILIARIES or word in IRREGULAR_PAST:
        return True
    if word in PARTICIPLE_PAST or word in BASE_VERBS or stem(word) in BASE_VERBS:
        return True
    return len(word) > 4 and word.endswith(("ed", "ing", "ly"))


def _names(text: str) -> dict[str, str]:
    """Capitalised words that are not stopwords, by stem (the first word of a sentence
    included: 'Paris is ...' names Paris)."""
    out: dict[str, str] = {}
    for word in words(text):
        low = word.lower()
        if word[:1].isupper() and low not in FUNCTION_WORDS and low not in _NOT_NAMES:
            out.setdefault(_norm(low), word)
    return out


# "Kadatch1": a name with its footnote's mark, as a title page writes an author's
_MARKED = re.compile(r"([A-Z][a-z]{2,})\d{1,2}")


@lru_cache(maxsize=4096)  # each claim reads every text of its evidence
def _stems(text: str) -> frozenset[str]:
    """The light stems of ``text``'s words, and of its names written with a footnote's mark
    without it ("Andrew Kadatch1 and Bob Jenkins2" holds Kadatch and Jenkins)."""
    marked = {_norm(m.group(1)) for w in words(text) if (m := _MARKED.fullmatch(w))}
    return frozenset(_norm(w) for w in words(text.lower())) | marked


@lru_cache(maxsize=1024)
def _sentences_of(text: str) -> tuple[str, ...]:
    return tuple(sentences(text) or [text])


def _best_sentence(words: list[str], texts: Sequence[str]) -> tuple[str, float]:
    """The evidence sentence holding most of ``words``, and the share it holds."""
    best, share = "", -1.0
    for text in texts:
        for sentence in _sentences_of(text):
            held = _stems(sentence)
            got = sum(w in held for w in words) / len(words) if words else 0.0
            if got > share:
                best, share = sentence, got
    return best, max(share, 0.0)


def check_claim(claim: str, evidence: Sequence[str]) -> Assessment:
    """One claim against the texts of the evidence it cites."""
    texts = [t for t in evidence if t.strip()]
    if not claim.strip():
        return Assessment("not-supported", 0.0, "the claim is empty")
    if not evidence:
        return Assessment("not-supported", 0.0, "it cites no evidence")
    if not texts:
        return Assessment("unverified", 0.0, "the evidence it cites is no longer available")
    content = _content(claim)
    words = list(content)
    read = best_passages([*words, *_names(claim)], texts, _stems)
    held = set().union(*(_stems(p) for p in read))
    found = [w for w in words if w in held]
    score = round(len(found) / len(words), 3) if words else 0.0
    best, share = _best_sentence(words, texts)
    numbers = _numbers(claim) - set().union(*(_numbers(p) for p in read))
    if numbers:
        other = _numbers(best) - _numbers(claim)
        if other and share >= SUPPORTED_AT:
            return Assessment(
                "contradicted",
                0.0,
                f"its evidence says {', '.join(sorted(other))} where it says "
                f"{', '.join(sorted(numbers))}",
            )
        return Assessment(
            "not-supported", score, f"{', '.join(sorted(numbers))} not in its evidence"
        )
    if share >= SUPPORTED_AT and _negated(claim) != _negated(best):
        which = "denies" if _negated(claim) else "affirms"
        return Assessment("contradicted", 0.0, f"it {which} what its evidence states: {best!r}")
    missing_names = [word for n, word in _names(claim).items() if n not in held]
    if missing_names:
        return Assessment(
            "not-supported", score, f"names {', '.join(missing_names)} not in its evidence"
        )
    if not words:
        return Assessment("not-supported", 0.0, "no content words to check")
    missing = [content[w] for w in words if w not in held]
    salient = [w for w in missing if not _relational(w)]
    if score < SUPPORTED_AT or salient:
        return Assessment(
            "not-supported",
            score,
            f"{len(found)} of {len(words)} content words in its "
            f"evidence (missing: {', '.join((salient or missing)[:5])})",
        )
    return Assessment(
        "supported", score, f"{len(found)} of {len(words)} content words in its evidence"
    )


def verify_claims(claims: Sequence[str], evidence: Sequence[Sequence[str]]) -> list[Assessment]:
    """Each claim against the texts of the evidence it cites (``evidence[i]`` for
    ``claims[i]``; an empty list: it cites nothing, never supported)."""
    if len(claims) != len(evidence):
        raise ValueError(f"{len(claims)} claims but evidence for {len(evidence)}")
    return [check_claim(c, e) for c, e in zip(claims, evidence, strict=True)]


def relevance(question: str, evidence: Sequence[str]) -> tuple[float, list[str]]:
    """The share of the question's content words the evidence holds, and those missing."""
    asked: dict[str, str] = {}  # stem -> the question's own word
    for word in words(question.lower()):
        if word not in STOPWORDS and word not in NEGATIONS:
            asked.setdefault(_norm(word), word)
    if not asked:
        return 1.0, []
    held = set().union(set(), *(_stems(t) for t in evidence))
    missing = [w for s, w in asked.items() if s not in held]
    return round(1 - len(missing) / len(asked), 3), missing


def relevant(question: str, evidence: Sequence[str]) -> bool:
    """Whether the evidence speaks of the question at all: ``RELEVANT_AT`` of its content
    words, and as much of those that say what it is *about* — that name a thing rather than
    word a relation (a verb or an adverb). A relation word alone ("discovered" in "Who
    discovered penicillin?") never makes evidence about something else relevant."""
    if relevance(question, evidence)[0] < RELEVANT_AT:
        return False
    about = [s for s, w in _content(question).items() if not _relational(w)]
    if not about:
        return True
    held = set().union(set(), *(_stems(t) for t in evidence))
    return sum(s in held for s in about) / len(about) >= RELEVANT_AT
