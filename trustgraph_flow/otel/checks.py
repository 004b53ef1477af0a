"""What an OTLP trace body may hold, and the checks every span read passes (one-line
``OtlpError``s that name the span and what is wrong)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from trustgraph_flow.otel.spans import Scalar, Span, Value


class OtlpError(ValueError):
    """A trace body that cannot be taken: the message says what and where (one line)."""


@dataclass(frozen=True)
class Limits:
    """What one request may hold."""

    spans: int = 20_000
    attributes: int = 256  # per span
    value_chars: int = 64 * 1024  # one attribute's text (or an array's, together)
    name_chars: int = 1024  # a span's name, an attribute's key


LIMITS = Limits()


def scalar(value: Value) -> Scalar:
    return json.dumps(value) if isinstance(value, list) else value


def service_of(attrs: list[tuple[str, Value]]) -> str | None:
    for key, value in attrs:
        if key == "service.name" and isinstance(value, str):
            return value
    return None


def checked(
    trace_id: bytes,
    span_id: bytes,
    parent_id: bytes,
    name: str,
    times: tuple[int, int],
    attrs: list[tuple[str, Value]],
    service: str | None,
    error: str | None,
    limits: Limits,
) -> Span:
    """One span, or ``OtlpError`` naming it and what is wrong."""
    where = f"span {span_id.hex() or '(none)'} of trace {trace_id.hex() or '(none)'}"
    if len(trace_id) != 16 or not any(trace_id):
        raise OtlpError(f"{where}: a trace id is 16 bytes, not all zero")
    if len(span_id) != 8 or not any(span_id):
        raise OtlpError(f"{where}: a span id is 8 bytes, not all zero")
    if parent_id and (len(parent_id) != 8 or not any(parent_id)):
        raise OtlpError(f"{where}: a parent span id is 8 bytes, not all zero")
    if len(name) > limits.name_chars:
        raise OtlpError(f"{where}: its name is longer than {limits.name_chars} characters")
    if len(attrs) > limits.attributes:
        raise OtlpError(f"{where}: more than {limits.attributes} attributes")
    for key, value in attrs:
        if len(key) > limits.name_chars:
            raise OtlpError(
                f"{where}: an attribute key is longer than {limits.name_chars} characters"
            )
        size = sum(len(str(x)) for x in value) if isinstance(value, list) else len(str(value))
        if size > limits.value_chars:
            raise OtlpError(
                f"{where}: attribute {key!r} holds {size} characters, more than {limits.value_chars}"
            )
    for which, ns in zip(("start", "end"), times, strict=True):
        if not 0 <= ns < 2**64:  # OTLP's fixed64; JSON may carry any integer
            raise OtlpError(
                f"{where}: its {which} time {ns} is not a time (nanoseconds since 1970, 0 to 2^64-1)"
            )
    attributes = dict(attrs)
    if service and "service.name" not in attributes:
        attributes["service.name"] = service
    start, end = times
    return Span(trace_id, span_id, name, start, max(start, end), parent_id, attributes, error)


def check_parents(spans: list[Span]) -> None:
    """``OtlpError`` if a span is its own ancestor, or two spans of a trace share an id."""
    parent: dict[tuple[bytes, bytes], bytes] = {}
    for s in spans:
        key = (s.trace_id, s.span_id)
        if key in parent:
            raise OtlpError(f"span {s.span_id.hex()} appears twice in trace {s.trace_id.hex()}")
        parent[key] = s.parent_id
    acyclic: set[tuple[bytes, bytes]] = set()  # spans whose ancestry is known to end
    for s in spans:
        seen, current = {s.span_id}, s.parent_id
        while current and (s.trace_id, current) not in acyclic:
            if current in seen:
                raise OtlpError(
                    f"span {s.span_id.hex()} of trace {s.trace_id.hex()} is its own ancestor "
                    "(a cycle of parent ids)"
                )
            seen.add(current)
            current = parent.get((s.trace_id, current), b"")
        acyclic.update((s.trace_id, x) for x in seen)
