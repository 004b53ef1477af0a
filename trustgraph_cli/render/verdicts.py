"""How verification is shown (docs/provenance.md, "Verification"): a claim's verdict mark,
and the Verification node of a GraphRAG or DocumentRAG trace under its Synthesis."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trustgraph_cli.render.tree import Field, Node

if TYPE_CHECKING:
    from collections.abc import Callable

    from trustgraph_base.schema.explain import ClaimView, TraceView, VerificationView

MARKS = {
    "supported": "supported",
    "not-supported": "NOT SUPPORTED",
    "contradicted": "CONTRADICTED",
    "unverified": "UNVERIFIED",
}
ANSWER_MARKS = {
    "supported": "supported",
    "partly-supported": "PARTLY SUPPORTED",
    "unsupported": "UNSUPPORTED",
}
PAINT = {"supported": ("green",), "partly-supported": ("yellow",), "unsupported": ("red", "bold")}
METHODS = {
    "heuristic": "heuristic (content words, numbers, names, negation; no model reads the claim)",
    "llm-judge": "LLM judge",
}


def claim_mark(claim: ClaimView) -> str:
    """``[NOT SUPPORTED: why]`` after a claim (``[supported]``; "" when it was not verified)."""
    return verdict_mark(claim.verdict, claim.reason)


def verdict_mark(verdict: str | None, reason: str | None) -> str:
    if verdict is None:
        return ""
    mark = MARKS.get(verdict, verdict)
    return f" [{mark}: {reason}]" if verdict != "supported" and reason else f" [{mark}]"


def method_text(v: VerificationView) -> str:
    how = METHODS.get(v.method, v.method)
    return f"{how}, model {v.model}" if v.method != "heuristic" else how


def verification_node(
    view: TraceView, verification: VerificationView, cut: Callable[[str], str], metrics: str | None
) -> Node:
    """The verification: how, the answer's verdict and why, the answer given if withheld,
    and each claim's verdict."""
    node = Node("Verification", verification.uri, title_paint=("bold", "cyan"))
    node.add("Method", method_text(verification))
    verdict = ANSWER_MARKS.get(verification.verdict, verification.verdict)
    node.add("Verdict", f"{verdict}: {verification.reason}", *PAINT.get(verification.verdict, ()))
    if verification.abstention is not None:
        node.fields.append(Field("Answer given", cut(verification.abstention), ("red",)))
    for n, claim in enumerate(view.claims, start=1):
        if claim.verdict is None:
            continue
        score = f" ({claim.score:.2f})" if claim.score is not None else ""
        text = '"' + " ".join(claim.text.split()) + '"'
        node.add(f"Claim {n}", cut(text) + claim_mark(claim) + score)
    if metrics:
        node.add("Metrics", metrics, "dim")
    return node


def verified_node(view: TraceView, key: str, cut: Callable[[str], str]) -> Node | None:
    """The answer's verification node (its figures: ``view.metrics[key]``); None: not verified."""
    from trustgraph_cli.render.parts import metrics_text

    if view.verification is None:
        return None
    figures = view.metrics.get(key)
    shown = metrics_text(figures) if figures is not None else None
    return verification_node(view, view.verification, cut, shown)


def verification_lines(found: dict[str, Any] | None, cut: Callable[[str], str]) -> list[str]:
    """tg-show-evidence's lines on an answer's verification (none when it was not verified)."""
    if not found:
        return []
    verdict = ANSWER_MARKS.get(found["verdict"], found["verdict"])
    lines = [f"  Verified: {verdict}: {found['reason']} ({found['method']})"]
    if found.get("abstention") is not None:
        lines.append(f"  Answer given: {cut(found['abstention'])}")
    return lines
