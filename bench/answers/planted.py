"""Planted claims for the verifier: for each question, the sentence of its document that
states the gold answer (a supported claim) and the same sentence with the answer swapped for
another question's answer of its kind that the evidence does not mention, or denied (an
unsupported one), each checked against the text around that sentence (what a cited excerpt
would hold)."""

from __future__ import annotations

import re

from bench.answers.questions import Question
from trustgraph_flow.llm.prose import prose_spans
from trustgraph_flow.llm.text import FUNCTION_WORDS, content_words, overlap

WINDOW = 450  # characters each side of the sentence: about one chunk of evidence
_AUX = re.compile(r"\b(is|was|are|were|has|had)\b")


def gold_span(text: str, q: Question) -> tuple[int, int] | None:
    """Where the document's sentence is that holds a gold answer and most of the question's
    words."""
    words = content_words(q.text)
    found = [
        (a, b)
        for a, b in prose_spans(text)
        if any(g.casefold() in " ".join(text[a:b].split()).casefold() for g in q.gold)
    ]
    if not found:
        return None
    return max(found, key=lambda span: len(overlap(words, text[span[0] : span[1]])))


def gold_sentence(text: str, q: Question) -> str | None:
    """That sentence, its whitespace made single spaces."""
    span = gold_span(text, q)
    return None if span is None else " ".join(text[span[0] : span[1]].split())


def evidence_around(text: str, sentence: str) -> str:
    flat = " ".join(text.split())
    at = flat.find(sentence)
    return flat[max(0, at - WINDOW) : at + len(sentence) + WINDOW] if at >= 0 else flat


def _kind(answer: str) -> str:
    return "number" if any(c.isdigit() for c in answer) else "name" if answer[:1].isupper() else ""


def plant(sentence: str, q: Question, others: list[Question], evidence: str) -> str:
    """The sentence made unsupported: its answer swapped for another question's of the same
    kind (a name for a name, a number for a number) that the evidence does not mention, or,
    failing that, denied."""
    answer = next(g for g in q.gold if g.casefold() in sentence.casefold())
    at = sentence.casefold().find(answer.casefold())
    kind = _kind(sentence[at : at + len(answer)])
    for other in others:
        swap = other.gold[0]
        if kind and _kind(swap) == kind and swap.casefold() not in evidence.casefold():
            return sentence[:at] + swap + sentence[at + len(answer) :]
    m = _AUX.search(sentence)
    if m:
        return sentence[: m.end()] + " not" + sentence[m.end() :]
    return "It is not true that " + sentence[:1].lower() + sentence[1:]


FAR = 3  # sentences between the gold sentence and the one a scattered plant's word is from
_NAME_OR_NUMBER = re.compile(r"\b(?:[A-Z][a-z]{2,}|\d{2,})\b")


def scatter(sentence: str, q: Question, evidence: str) -> str | None:
    """The sentence made unsupported with words its evidence does hold, scattered: its
    answer swapped for a name (or number) of the same kind that the evidence states
    ``FAR`` or more sentences away from it, and nowhere nearer (a claim whose words are all
    in a long chunk, but not together); None when the evidence has no such word."""
    answer = next(g for g in q.gold if g.casefold() in sentence.casefold())
    at = sentence.casefold().find(answer.casefold())
    kind = _kind(sentence[at : at + len(answer)])
    spans = prose_spans(evidence)
    here = next((n for n, (a, b) in enumerate(spans) if sentence in evidence[a:b]), None)
    if not kind or here is None:
        return None
    near = " ".join(evidence[a:b] for a, b in spans[max(0, here - FAR + 1) : here + FAR])
    for n, (a, b) in enumerate(spans):
        if abs(n - here) < FAR:
            continue
        for m in _NAME_OR_NUMBER.finditer(evidence, a, b):
            word = m.group()
            if m.start() == a or _kind(word) != kind or word.lower() in FUNCTION_WORDS:
                continue  # a sentence's first word is not a name for that
            if re.search(rf"\b{re.escape(word)}\b", near, re.IGNORECASE):
                continue
            return sentence[:at] + word + sentence[at + len(answer) :]
    return None
