"""Cited evidence: the structured synthesis reply (the answer and the numbers of the
evidence it rests on) and its schema."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from trustgraph_base.messaging import Context
from trustgraph_base.schema import TextCompletionRequest
from trustgraph_flow.rag_common.calls import Cost, add_cost
from trustgraph_flow.structured import BadReply, ask, schema_of

CITE_SYSTEM = (
    ' Reply with only JSON like {"answer": "the answer", "cited": [1, 3], "claims": '
    '[{"text": "a sentence of the answer", "cited": [1]}]}, where "cited" lists the numbers '
    'of the {what} the answer rests on (none if it rests on none) and "claims" has one '
    "item per sentence of the answer, copied exactly, with the numbers of the {what} that "
    "sentence rests on."
)


def _numbers(value: Any) -> Any:
    """Evidence numbers as the model wrote them: "e2", "[2]" and "2" are all 2."""
    if not isinstance(value, list):
        return value
    out: list[Any] = []
    for item in value:
        if isinstance(item, str):
            digits = item.strip().strip("[]").lstrip("eEcC#")
            out.append(int(digits) if digits.isdigit() else 0)
        else:
            out.append(item)
    return out


class ClaimCites(BaseModel):
    """One sentence of the answer and the numbers of the evidence it rests on."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    text: str
    cited: list[int] = []

    _cited = field_validator("cited", mode="before")(_numbers)


class CitedAnswer(BaseModel):
    """A synthesis reply under structured output: the answer, the numbers (1-based) of the
    evidence it cites, and each of its sentences (claims) with the evidence it rests on."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    answer: str
    cited: list[int] = []
    claims: list[ClaimCites] = []

    _cited = field_validator("cited", mode="before")(_numbers)


def cited_schema(count: int) -> dict[str, Any]:
    """The synthesis reply schema for ``count`` numbered pieces of evidence."""
    schema = schema_of(CitedAnswer)
    items: dict[str, Any] = {"type": "integer", "enum": list(range(1, count + 1))}
    cited = {"type": "array", "items": items, "maxItems": count}
    schema["properties"]["cited"] = cited
    schema["properties"]["claims"]["items"]["properties"]["cited"] = cited
    return schema


async def cited_answer(
    ctx: Context[Any], request: TextCompletionRequest, evidence: Sequence[str], what: str
) -> tuple[str, list[str], list[ClaimCites], Cost]:
    """One structured call: the answer, the URIs of the evidence it cites, its sentences
    with the evidence numbers of each, its cost."""
    asked = request.model_copy(
        update={"system": request.system + CITE_SYSTEM.replace("{what}", what)}
    )
    cost = Cost()
    try:
        reply = await ask(ctx, asked, CitedAnswer, schema=cited_schema(len(evidence)))
    except BadReply as exc:  # not the JSON asked for: a plain answer that cites nothing
        if exc.response is not None:
            add_cost(cost, exc.response, exc.latency_ms)
        return exc.text, [], [], cost
    add_cost(cost, reply.response, reply.latency_ms)
    cited = [evidence[n - 1] for n in reply.value.cited if 1 <= n <= len(evidence)]
    return reply.value.answer, cited, reply.value.claims, cost
