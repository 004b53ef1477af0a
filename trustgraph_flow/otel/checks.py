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
    if len(trace_id) != 16 or not any(trace_id):
        raise OtlpError(f"{_where(trace_id, span_id)}: a trace id is 16 bytes, not all zero")
    if len(span_id) != 8 or not any(span_id):
        raise OtlpError(f"{_where(trace_id, span_id)}: a span id is 8 bytes, not all zero")
    if parent_id and (len(parent_id) != 8 or not any(parent_id)):
        raise OtlpError(f"{_where(trace_id, span_id)}: a parent span id is 8 bytes, not all zero")
    if len(name) > limits.name_chars:
        raise OtlpError(
            f"{_where(trace_id, span_id)}: its name is longer than {limits.name_chars} characters"
        )
    if len(attrs) > limits.attributes:
        raise OtlpError(f"{_where(trace_id, span_id)}: more than {limits.attributes} attributes")
    for key, value in attrs:
        if len(key) > limits.name_chars:
            raise OtlpError(
                f"{_where(trace_id, span_id)}: an attribute key is longer than "
                f"{limits.name_chars} characters"
            )
        if type(value) is str:  # most are: no str() of it
            size = len(value)
        elif isinstance(value, list):
            size = sum(len(str(x)) for x in value)
        else:
            size = len(str(value))
        if size > limits.value_chars:
            raise OtlpError(
                f"{_where(trace_id, span_id)}: attribute {key!r} holds {size} characters, "
                f"more than {limits.value_chars}"
            )
    start, end = times
    for which, ns in (("start", start), ("end", end)):
        if not 0 <= ns < 2**64:  # OTLP's fixed64; JSON may carry any integer
            raise OtlpError(
                f"{_where(trace_id, span_id)}: its {which} time {ns} is not a time "
                "(nanoseconds since 1970, 0 to 2^64-1)"
            )
    attributes = dict(attrs)
    if service and "service.name" not in attributes:
        attributes["service.name"] = service
    return Span(trace_id, span_id, name, start, max(start, end), parent_id, attributes, error)


def _where(trace_id: bytes, span_id: bytes) -> str:
    """A span as an error names it (made only for an error: two hex ids a span cost ~1 µs)."""
    return f"span {span_id.hex() or '(none)'} of trace {trace_id.hex() or '(none)'}"


def check_parents(spans: list[Span]) -> None:
    """``OtlpError`` if a span is its own ancestor, or two spans of a trace share an id.
    Each trace's spans are walked by their own ids (a tuple of both ids a span and an
    ancestor made most of this check's time)."""
    parents: dict[bytes, dict[bytes, bytes]] = {}
    for s in spans:
        parent = parents.setdefault(s.trace_id, {})
        if s.span_id in parent:
            raise OtlpError(f"span {s.span_id.hex()} appears twice in trace {s.trace_id.hex()}")
        parent[s.span_id] = s.parent_id
    acyclic: dict[bytes, set[bytes]] = {t: set() for t in parents}  # ancestry known to end
    for s in spans:
        parent, ended = parents[s.trace_id], acyclic[s.trace_id]
        seen, current = {s.span_id}, s.parent_id
        while current and current not in ended:
            if current in seen:
                raise OtlpError(
                    f"span {s.span_id.hex()} of trace {s.trace_id.hex()} is its own ancestor "
                    "(a cycle of parent ids)"
                )
            seen.add(current)
            current = parent.get(current, b"")
        ended |= seen
