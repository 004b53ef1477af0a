"""The one internal model both directions share: a span, as OTLP carries it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from trustgraph_flow.otel import conventions as c

Scalar = str | bool | int | float
Value = Scalar | list[Scalar]
# An integer sent as text, as long as OTLP's int64 writes one. ``isdecimal``, not ``isdigit``:
# ``int()`` refuses a superscript '²' that ``isdigit`` takes, and text past 4,300 digits.
COUNT_DIGITS = 19


@dataclass(frozen=True, slots=True)
class Span:
    """One span: ids as bytes (16 for the trace, 8 for the span; ``parent_id`` empty for a
    root), times in Unix nanoseconds, attributes flat (dotted keys), ``error`` the status
    message of a span whose status is an error."""

    trace_id: bytes
    span_id: bytes
    name: str
    start_ns: int
    end_ns: int
    parent_id: bytes = b""
    attributes: dict[str, Value] = field(default_factory=dict)
    error: str | None = None

    def text(self, *keys: str) -> str | None:
        """The first of ``keys`` that holds a value, as text."""
        for key in keys:
            value = self.attributes.get(key)
            if value is not None and value != "":
                return value if isinstance(value, str) else str(value)
        return None

    def number(self, *keys: str) -> int | None:
        """The first of ``keys`` that holds an integer (or integer text)."""
        for key in keys:
            value = self.attributes.get(key)
            if isinstance(value, bool):
                continue
            if isinstance(value, int):
                return value
            if isinstance(value, str) and value.isdecimal() and len(value) <= COUNT_DIGITS:
                return int(value)
        return None

    def documents(self) -> list[tuple[str, float | None]]:
        """A retriever span's documents, ``(id, score)`` in order: OpenInference's flattened
        ``retrieval.documents.{i}.document.*`` or GenAI's ``gen_ai.retrieval.documents`` JSON."""
        found: dict[int, dict[str, object]] = {}
        prefix = c.DOCS + "."
        for key, value in self.attributes.items():
            if key.startswith(prefix):
                index, _, name = key[len(prefix) :].partition(".document.")
                if index.isdecimal() and name in ("id", "score"):
                    found.setdefault(int(index), {})[name] = value
        listed = [found[i] for i in sorted(found)]
        if not listed and (raw := self.text(c.RETRIEVAL_DOCUMENTS)):
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = []
            listed = [d for d in parsed if isinstance(d, dict)] if isinstance(parsed, list) else []
        out: list[tuple[str, float | None]] = []
        for d in listed:
            if d.get("id") in (None, ""):
                continue
            out.append((str(d["id"]), _score(d.get("score"))))
        return out


def _score(value: object) -> float | None:
    """A document's score as a float (None: not a number, or an integer past a float's range)."""
    if not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:
        return None
