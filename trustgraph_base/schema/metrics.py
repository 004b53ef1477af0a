"""The metrics report each processor publishes on the ``metrics`` topic every few seconds."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trustgraph_base.schema.core import Message

NAME_MAX = 200


class MetricSample(Message):
    """One value: a counter (only grows) or a gauge, with its labels."""

    kind: Literal["counter", "gauge"]
    name: str = Field(min_length=1, max_length=NAME_MAX)
    labels: dict[str, str] = Field(default={}, max_length=16)
    value: float


class MetricsReport(Message):
    """What one processor process counted since it started, as of ``at`` (Unix seconds);
    ``every`` is how many seconds until its next report (a processor not heard from for
    three of them is down)."""

    processor: str = Field(min_length=1, max_length=NAME_MAX)
    instance: str = Field(min_length=1, max_length=NAME_MAX)
    at: float
    every: float = Field(gt=0)
    samples: list[MetricSample] = Field(default=[], max_length=10_000)
