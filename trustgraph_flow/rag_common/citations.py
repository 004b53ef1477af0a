"""Cited evidence: the structured synthesis reply (the answer and the numbers of the
evidence it rests on) and its schema."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from trustgraph_flow.structured import schema_of

CITE_SYSTEM = (
    ' Reply with only JSON like {"answer": "the answer", "cited": [1, 3]}, where "cited" '
    "lists the numbers of the {what} the answer rests on (none if it rests on none)."
)


class CitedAnswer(BaseModel):
    """A synthesis reply under structured output: the answer and the numbers (1-based) of
    the evidence it cites; "e2", "[2]" and "2" are all read as 2."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    answer: str
    cited: list[int] = []

    @field_validator("cited", mode="before")
    @classmethod
    def _numbers(cls, value: Any) -> Any:
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


def cited_schema(count: int) -> dict[str, Any]:
    """The synthesis reply schema for ``count`` numbered pieces of evidence."""
    schema = schema_of(CitedAnswer)
    items: dict[str, Any] = {"type": "integer", "enum": list(range(1, count + 1))}
    schema["properties"]["cited"] = {"type": "array", "items": items, "maxItems": count}
    return schema
