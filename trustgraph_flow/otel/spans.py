"""The one internal model both directions share: a span, as OTLP carries it."""

from __future__ import annotations

from dataclasses import dataclass, field

Scalar = str | bool | int | float
Value = Scalar | list[Scalar]


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
            if isinstance(value, str) and value.isdigit():
                return int(value)
        return None
