"""The agent's own conclusion, verified (docs/agent.md, "The conclusion, verified").

Each GraphRAG or DocumentRAG answer a tool returns was verified in its sub-trace, claim by
claim, against the evidence that answer cites. The session keeps the claims those
verifications found supported (``ToolEvidence``); the final answer's claims (its sentences)
are checked against them the same way (``verify.step``: a real LLM judges, the offline
engine runs the heuristic), recorded as ``{final}/verification`` with one ``tg:Assessment``
per claim, and a conclusion nothing supports is withheld ("The documents do not say") unless
``unsupported_answers`` is ``keep``. A session none of whose tools returned a verified answer
(no tool called; only tools that do not verify) records no verification: it is listed
"unverified".
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from trustgraph_base.messaging import Context
from trustgraph_base.provenance.evidence import ClaimSpec, claim_triples
from trustgraph_base.rdf.terms import Triple
from trustgraph_flow.agent.events import FinishReason
from trustgraph_flow.agent.evidence import ToolEvidence
from trustgraph_flow.llm.prose import answer_spans
from trustgraph_flow.rag_common.verification import (
    kept_answer,
    verification,
    verification_stage,
)
from trustgraph_flow.verify.step import ABSTAIN, abstention_text

NOTHING_SUPPORTED = "no answer of its tools is supported by the evidence it cites"


def ending(reason: FinishReason, given: str) -> FinishReason:
    """How the session ended, as its trace keeps it: an answer that declines ("The documents
    do not say: …", withheld here or the agent's own words) ends it "abstained"; the caller's
    ``finish_reason`` stays "answer", the reference's vocabulary."""
    return "abstained" if reason == "answer" and given.startswith(ABSTAIN) else reason


async def checked_conclusion(
    ctx: Context[Any],
    user: str,
    question: str,
    final_uri: str,
    answer: str,
    evidence: ToolEvidence,
    kept: list[Triple] | None = None,
) -> tuple[str, list[Triple]]:
    """The answer the caller gets and the triples to add to the conclusion (its claims and
    their verification, the judge asked with ``user``'s prompt; none when no tool answer was
    verified). ``kept``: the conclusion a
    rerun's trace already holds: it is answered as it decided then."""
    if kept is not None:
        return kept_answer(kept, final_uri, answer), []
    if not evidence.verified:
        return answer, []
    cited = tuple(evidence.claims)
    claims = [ClaimSpec(answer[a:b], a, b - a, cited) for a, b in answer_spans(answer)]
    outcome, triples = await verification(
        ctx,
        user=user,
        question=question,
        synthesis=final_uri,
        answer=answer,
        claims=claims,
        evidence=list(cited),
        texts=list(evidence.claims.values()),
    )
    record = outcome.record
    if record.abstention is not None and (not cited or answer.startswith(ABSTAIN)):
        # Its tools found nothing supported, or the answer says itself that the documents do
        # not say: the trace says why, and the caller gets the agent's own words for it.
        reason = record.reason if cited else NOTHING_SUPPORTED
        given = answer if answer.startswith(ABSTAIN) else abstention_text(reason)
        record = replace(record, reason=reason, abstention=given)
        outcome = replace(outcome, record=record, answer=given)
        triples = verification_stage(final_uri, outcome)
    return outcome.answer, claim_triples(final_uri, claims) + triples
