"""Scoring one answer from its trace (``tg-show-explain-trace --format json``): right or not,
the gold place among the evidence and among what the answer cites, and abstention."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench.answers.questions import Question

# What an answer that says the documents do not answer it contains (the offline engine's
# and the processors' wordings).
ABSTAINED = (
    "do not say",
    "does not say",
    "no relevant information",
    "no answer was found",
    "not found in the",
)


@dataclass(frozen=True)
class Score:
    right: bool
    in_evidence: bool
    cited: bool
    cited_on_gold: int
    cited_total: int
    abstained: bool


def abstained(answer: str, view: dict[str, Any] | None) -> bool:
    if view is not None and (view.get("abstention") or view.get("abstained")):
        return True
    low = answer.casefold()
    return not low.strip() or any(marker in low for marker in ABSTAINED)


def _items(view: dict[str, Any]) -> list[dict[str, Any]]:
    return list(view.get("chunks") or []) + list(view.get("edges") or [])


Span = tuple[int, int] | None


def _holds(src: dict[str, Any], span: Span) -> bool:
    """Whether a source chunk holds the gold sentence (characters ``span`` of a page-less
    document); any chunk of the gold page does for a PDF (``span`` None)."""
    if span is None:
        return True
    start, length = src.get("char_offset"), src.get("char_length")
    if not isinstance(start, int) or not isinstance(length, int):
        return False
    return start < span[1] and span[0] < start + length


def _on_gold(item: dict[str, Any], q: Question, span: Span) -> bool:
    return any(
        src.get("title") == q.doc
        and (q.page is None or src.get("page_number") == q.page)
        and _holds(src, span)
        for src in item.get("sources") or []
    )


def score(q: Question, answer: str, view: dict[str, Any] | None, span: Span = None) -> Score:
    """``span``: where the gold sentence is in a page-less document (its gold place is the
    chunk that holds it); None for a PDF, whose gold place is the page."""
    gave_up = abstained(answer, view)
    right = not gave_up and any(g.casefold() in answer.casefold() for g in q.gold)
    items = _items(view) if view is not None else []
    cited = [i for i in items if i.get("cited")]
    on_gold = [i for i in cited if _on_gold(i, q, span)]
    return Score(
        right=right,
        in_evidence=any(_on_gold(i, q, span) for i in items),
        cited=bool(on_gold),
        cited_on_gold=len(on_gold),
        cited_total=len(cited),
        abstained=gave_up,
    )


def share(hits: int, total: int) -> str:
    return f"{hits}/{total} ({hits / total:.0%})" if total else "-"
