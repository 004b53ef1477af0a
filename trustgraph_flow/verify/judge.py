"""The judge: the ``verify-claims`` prompt, its structured reply and the offline engine's answer.

A real LLM is asked once per batch of claims (``BATCH``), each claim numbered with the texts
of the evidence it cites, for a verdict, a score and a reason per claim and whether the
evidence speaks of the question at all; the reply must validate against ``JUDGE_SCHEMA``. The
offline engine answers the same prompt with the deterministic check (``heuristic``).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from trustgraph_flow.llm.text import as_list, as_text, field
from trustgraph_flow.prompts.templates import render
from trustgraph_flow.structured import schema_of
from trustgraph_flow.verify.heuristic import check_claim, relevant

PROMPT_TYPE = "verify-claims"
BATCH = 8  # claims per judge call
MAX_EVIDENCE_CHARS = 1500  # of each evidence text shown to the judge
JUDGE_SYSTEM = (
    "You check an answer's claims against the evidence each claim cites. For every claim "
    'say "supported" if its evidence states it, "contradicted" if its evidence states '
    'otherwise, "not-supported" if its evidence does not state it; give a score from 0 '
    "(not at all) to 1 (fully stated) and a short reason. Judge only from the evidence "
    "shown, never from what you know. Also say whether the evidence speaks of the question "
    'at all ("relevant"). Reply with only JSON like {"relevant": true, "claims": '
    '[{"claim": 1, "verdict": "supported", "score": 0.9, "reason": "stated in [1]"}]}.'
)


class Judged(BaseModel):
    """The judge's verdict on one numbered claim."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    claim: int
    verdict: Literal["supported", "not-supported", "contradicted"]
    score: float = Field(ge=0.0, le=1.0)
    reason: str = ""


class Judgement(BaseModel):
    """A judge reply: whether the evidence is relevant to the question, and each claim's verdict."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    relevant: bool
    claims: list[Judged]


def judge_schema(count: int) -> dict[str, Any]:
    """The reply schema for a batch of ``count`` claims (numbered from 1)."""
    schema = schema_of(Judgement, 200)
    item = schema["properties"]["claims"]["items"]
    item["properties"]["claim"] = {"type": "integer", "enum": list(range(1, count + 1))}
    schema["properties"]["claims"]["maxItems"] = count
    return schema


JUDGE_TEMPLATE = "Question: {{question}}\n\n{{claims}}\n\nYour JSON verdicts:"


def render_claims(claims: list[dict[str, Any]]) -> str:
    """The ``{{claims}}`` of the prompt: each numbered claim with its evidence texts, a blank
    line between claims."""
    blocks = []
    for item in claims:
        lines = [f"Claim {item['n']}: {item['text']}"]
        texts = item["evidence"]
        if not texts:
            lines.append("  (cites no evidence)")
        for k, text in enumerate(texts, start=1):
            lines.append(f"  Evidence [{k}]: {text[:MAX_EVIDENCE_CHARS]}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def render_judge(question: str, claims: list[dict[str, Any]]) -> str:
    """The prompt a real LLM sees (the default ``JUDGE_TEMPLATE``): the question, then each
    claim with its evidence."""
    return render(JUDGE_TEMPLATE, {"question": question, "claims": render_claims(claims)})


def judge_offline(variables: dict[str, Any], structured: bool = False) -> str:
    """``verify-claims`` by the offline engine: the deterministic check of each claim, as
    the JSON a judge replies (``structured`` or not: the reply is JSON either way)."""
    question = as_text(variables.get("question"))
    verdicts = []
    seen: list[str] = []
    for item in as_list(variables.get("claims")):
        texts = (
            [as_text(t) for t in as_list(item.get("evidence"))] if isinstance(item, dict) else []
        )
        seen += texts
        found = check_claim(field(item, "text"), texts)
        verdict = "not-supported" if found.verdict == "unverified" else found.verdict
        number = item.get("n") if isinstance(item, dict) else None
        verdicts.append(
            {"claim": number, "verdict": verdict, "score": found.score, "reason": found.reason}
        )
    reply = {"relevant": relevant(question, seen), "claims": verdicts}
    return json.dumps(reply, ensure_ascii=False)
