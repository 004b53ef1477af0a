"""The verification stage of a RAG trace: after the synthesis, its claims are checked against
the evidence they cite (``verify.step``), published as ``{synthesis}/verification``, and the
caller answered the answer or, when nothing supports it, the abstention.

A rerun of a run cut short after its synthesis reads the claims back from the recorded
synthesis; one cut short after its verification answers as that verification decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trustgraph_base.messaging import Context
from trustgraph_base.provenance import GRAPH_RETRIEVAL, TG, metrics_triples
from trustgraph_base.provenance.evidence import ClaimSpec
from trustgraph_base.provenance.verification import (
    abstention_uri,
    verification_triples,
    verification_uri,
)
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple
from trustgraph_flow.verify.step import Outcome, verify_answer


def kept_claims(kept: Sequence[Triple], synthesis: str) -> list[ClaimSpec]:
    """The claims of a recorded synthesis stage (a rerun's), in their order."""
    found: dict[str, dict[str, Any]] = {}
    prefix = f"{synthesis}/claim"
    for t in kept:
        s = getattr(t.s, "i", "")
        if not s.startswith(prefix) or not s[len(prefix) :].isdigit():
            continue
        claim = found.setdefault(s, {"text": "", "offset": 0, "length": 0, "cited": []})
        if t.p == TG.content and isinstance(t.o, LiteralTerm):
            claim["text"] = t.o.v
        elif t.p == TG.charOffset and isinstance(t.o, LiteralTerm):
            claim["offset"] = int(t.o.v)
        elif t.p == TG.charLength and isinstance(t.o, LiteralTerm):
            claim["length"] = int(t.o.v)
        elif t.p == TG.cites and isinstance(t.o, IriTerm):
            claim["cited"].append(t.o.i)
    order = sorted(found, key=lambda uri: int(uri[len(prefix) :]))
    return [
        ClaimSpec(
            text=found[u]["text"],
            offset=found[u]["offset"],
            length=found[u]["length"],
            cited=tuple(found[u]["cited"]),
        )
        for u in order
    ]


def kept_text(kept: Sequence[Triple], uri: str) -> str:
    """The ``tg:content`` of entity ``uri`` among recorded triples ("" if none)."""
    for t in kept:
        if getattr(t.s, "i", "") == uri and t.p == TG.content and isinstance(t.o, LiteralTerm):
            return t.o.v
    return ""


def kept_answer(kept: Sequence[Triple], synthesis: str, draft: str) -> str:
    """What a recorded verification answered: its abstention's text, else the draft."""
    return kept_text(kept, abstention_uri(synthesis)) or draft


async def verification(
    ctx: Context[Any],
    *,
    user: str,
    question: str,
    synthesis: str,
    answer: str,
    claims: Sequence[ClaimSpec],
    evidence: Sequence[str],
    texts: Sequence[str],
) -> tuple[Outcome, list[Triple]]:
    """Check the claims (the judge asked with ``user``'s prompt); the outcome and the triples
    of the verification stage (with the judge's cost and prompt on the activity)."""
    outcome = await verify_answer(
        ctx,
        user=user,
        question=question,
        answer_uri=synthesis,
        answer=answer,
        claims=claims,
        texts=dict(zip(evidence, texts, strict=False)),
        unsupported=getattr(ctx.settings, "unsupported_answers", "abstain"),
    )
    return outcome, verification_stage(synthesis, outcome)


def verification_stage(answer_uri: str, outcome: Outcome) -> list[Triple]:
    """The triples of an answer's verification, with the judge's cost on the activity and,
    when an LLM judged, the prompt it was asked with (``tg:prompt``)."""
    cost, uri = outcome.cost, verification_uri(answer_uri)
    return [
        *verification_triples(answer_uri, outcome.record),
        *metrics_triples(
            uri,
            GRAPH_RETRIEVAL,
            in_token=cost.in_token if cost.models else None,
            out_token=cost.out_token if cost.models else None,
            latency_ms=cost.latency_ms if cost.models else None,
        ),
        *(outcome.prompt.triples(uri, GRAPH_RETRIEVAL) if outcome.prompt else []),
    ]
