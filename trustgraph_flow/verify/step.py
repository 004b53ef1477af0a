"""The verification step after synthesis: each claim against the evidence it cites, through
the text-completion service (a real LLM judges; the offline engine runs the heuristic), and
the answer's verdict — withheld ("the documents do not say") when nothing supports it, unless
the ``unsupported_answers`` setting keeps it (docs/rag.md, "Verification and abstention").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from trustgraph_base.errors import RequestTimeout, ServiceError
from trustgraph_base.messaging import Context
from trustgraph_base.provenance.common import now_iso
from trustgraph_base.provenance.evidence import ClaimSpec, claim_uri
from trustgraph_base.provenance.verification import ClaimAssessment, VerificationRecord
from trustgraph_base.schema import TextCompletionRequest, TextCompletionResponse
from trustgraph_flow.llm.offline import MODEL as OFFLINE_MODEL
from trustgraph_flow.prompts.book import PromptUse, prompted
from trustgraph_flow.structured import BadReply, ask
from trustgraph_flow.verify.addressing import unaddressed
from trustgraph_flow.verify.heuristic import METHOD as HEURISTIC
from trustgraph_flow.verify.heuristic import relevance
from trustgraph_flow.verify.judge import (
    BATCH,
    JUDGE_SYSTEM,
    PROMPT_TYPE,
    Judgement,
    judge_schema,
    render_judge,
)

UnsupportedAnswers = Literal["abstain", "keep"]
LLM_JUDGE = "llm-judge"
ABSTAIN = "The documents do not say"
JUDGE_MAX_TOKENS = 1024


@dataclass
class JudgeCost:
    """What the judge calls cost: tokens, wall time and the models that answered, and the
    prompt they were asked with (``verify-claims`` as the user configured it)."""

    in_token: int = 0
    out_token: int = 0
    latency_ms: float = 0.0
    models: list[str] = field(default_factory=list)
    prompt: PromptUse | None = None


@dataclass(frozen=True)
class Outcome:
    """A verification's record, the answer the caller gets, the cost of the judge calls and
    the prompt an LLM judged with (None: the heuristic, or no judge asked)."""

    record: VerificationRecord
    answer: str
    cost: JudgeCost
    prompt: PromptUse | None = None

    @property
    def abstained(self) -> bool:
        return self.record.abstention is not None


def abstention_text(reason: str) -> str:
    """What the caller is answered when the answer is withheld."""
    return f"{ABSTAIN}: {reason}."


@dataclass
class _Batch:
    """Claims sent to the judge together: their indexes and the prompt variables."""

    indexes: list[int] = field(default_factory=list)
    items: list[dict[str, Any]] = field(default_factory=list)


def _prepared(
    claims: Sequence[ClaimSpec], texts: Mapping[str, str]
) -> tuple[list[tuple[str, float, str] | None], list[_Batch]]:
    """Verdicts settled without a judge (nothing cited; evidence gone), the rest in batches."""
    settled: list[tuple[str, float, str] | None] = []
    batches: list[_Batch] = []
    for i, claim in enumerate(claims):
        shown = [texts.get(uri, "") for uri in claim.cited]
        if not claim.cited:
            settled.append(("not-supported", 0.0, "it cites no evidence"))
            continue
        if not any(t.strip() for t in shown):
            settled.append(("unverified", 0.0, "the evidence it cites is no longer available"))
            continue
        settled.append(None)
        if not batches or len(batches[-1].indexes) == BATCH:
            batches.append(_Batch())
        n = len(batches[-1].indexes) + 1
        batches[-1].indexes.append(i)
        batches[-1].items.append({"n": n, "text": claim.text, "evidence": [t for t in shown if t]})
    return settled, batches


async def _judge(
    ctx: Context[Any], user: str, question: str, batch: _Batch, cost: JudgeCost
) -> tuple[dict[int, tuple[str, float, str]], bool | None]:
    """One judge call, with ``user``'s ``verify-claims`` prompt: each claim's (verdict, score,
    reason) by its index, and relevance. A reply that fails its schema, or a failed call,
    leaves the batch unverified."""
    request = TextCompletionRequest(
        system=JUDGE_SYSTEM,
        prompt=render_judge(question, batch.items),
        prompt_type=PROMPT_TYPE,
        variables={"question": question, "claims": batch.items},
        temperature=0.0,
        max_tokens=JUDGE_MAX_TOKENS,
    )
    request, used = await prompted(ctx, user, request)
    cost.prompt = cost.prompt or used
    try:
        reply = await ask(ctx, request, Judgement, schema=judge_schema(len(batch.items)))
    except BadReply as exc:
        _count(cost, exc.response, exc.latency_ms)
        why = f"the judge's reply did not match its schema ({exc})"[:300]
        return {i: ("unverified", 0.0, why) for i in batch.indexes}, None
    except (ServiceError, RequestTimeout) as exc:
        why = f"the judge could not be asked ({exc})"[:300]
        return {i: ("unverified", 0.0, why) for i in batch.indexes}, None
    _count(cost, reply.response, reply.latency_ms)
    found: dict[int, tuple[str, float, str]] = {
        i: ("unverified", 0.0, "the judge gave no verdict on it") for i in batch.indexes
    }
    for item in reply.value.claims:
        if 1 <= item.claim <= len(batch.indexes):
            found[batch.indexes[item.claim - 1]] = (item.verdict, item.score, item.reason)
    return found, reply.value.relevant


def _count(cost: JudgeCost, response: TextCompletionResponse | None, latency: float) -> None:
    if response is None:
        return
    cost.in_token += response.in_token
    cost.out_token += response.out_token
    cost.latency_ms += latency
    if response.model:
        cost.models.append(response.model)


def _answer_verdict(
    verdicts: Sequence[str], cited: bool, relevant: bool, why_not: str, off: str | None = None
) -> tuple[str, str]:
    """The answer's verdict and why, from its claims' verdicts, the evidence's relevance and
    why no sentence of the answer addresses the question (``off``; None: one does)."""
    supported = sum(v == "supported" for v in verdicts)
    if not verdicts:
        return "unsupported", "the answer has no claims to check"
    if not cited:
        return "unsupported", "the answer cites no evidence"
    if not relevant:
        return "unsupported", why_not
    if off is not None:
        return "unsupported", off
    if all(v == "unverified" for v in verdicts):
        return "unsupported", "no claim of the answer could be verified"
    if supported == 0:
        return "unsupported", "no claim of the answer is supported by the evidence it cites"
    word = "supported" if supported == len(verdicts) else "partly-supported"
    return word, f"{supported} of {len(verdicts)} claims supported by the evidence they cite"


async def verify_answer(
    ctx: Context[Any],
    *,
    user: str,
    question: str,
    answer_uri: str,
    answer: str,
    claims: Sequence[ClaimSpec],
    texts: Mapping[str, str],
    unsupported: UnsupportedAnswers,
) -> Outcome:
    """Check ``claims`` (of the answer entity ``answer_uri``) against ``texts`` (evidence URI →
    text), the judge asked with ``user``'s prompt; the outcome's ``answer`` is the answer, or
    the abstention when it is withheld."""
    started = now_iso()
    settled, batches = _prepared(claims, texts)
    cost = JudgeCost()
    judged: dict[int, tuple[str, float, str]] = {}
    votes: list[bool] = []
    for batch in batches:
        found, relevant = await _judge(ctx, user, question, batch, cost)
        judged.update(found)
        if relevant is not None:
            votes.append(relevant)
    results = [s if s is not None else judged[i] for i, s in enumerate(settled)]
    cited = [u for c in claims for u in c.cited]
    heuristic = all(m == OFFLINE_MODEL for m in cost.models)  # no judge asked: rules only
    cited_texts = [texts.get(u, "") for u in cited]
    share, missing = relevance(question, cited_texts)
    is_relevant = any(votes) if votes else True  # no judge reply: relevance unknown
    why_not = (
        "nothing it cites speaks of " + ", ".join(f"'{w}'" for w in missing[:6])
        if heuristic and missing
        else "the evidence it cites does not speak of the question"
    )
    off = unaddressed(question, [c.text for c in claims], cited_texts) if heuristic else None
    verdict, reason = _answer_verdict(
        [r[0] for r in results], bool(cited), is_relevant, why_not, off
    )
    withheld = verdict == "unsupported" and unsupported == "abstain"
    record = VerificationRecord(
        method=HEURISTIC if heuristic else LLM_JUDGE,
        model=cost.models[0] if cost.models else "none",
        started_at=started,
        ended_at=now_iso(),
        evidence=list(dict.fromkeys(cited)),
        assessments=[
            ClaimAssessment(claim_uri(answer_uri, n), v, s, r)
            for n, (v, s, r) in enumerate(results, start=1)
        ],
        answer_verdict=verdict,
        reason=reason,
        abstention=abstention_text(reason) if withheld else None,
        relevance=share if heuristic else None,
        addressed=(off is None) if heuristic else None,
    )
    given = abstention_text(reason) if withheld else answer
    return Outcome(record, given, cost, None if heuristic else cost.prompt)
