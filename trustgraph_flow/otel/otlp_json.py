"""OTLP/HTTP JSON trace bodies as the specification writes them: lowerCamelCase fields, trace
and span ids in hex, 64-bit integers as numbers or strings (``otlp.decode`` calls it)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from trustgraph_flow.otel.checks import Limits, OtlpError, checked, scalar, service_of
from trustgraph_flow.otel.spans import Span, Value


def from_json(data: Any, limits: Limits) -> Iterator[Span]:
    count = 0
    for rs in _list(data, "resourceSpans"):
        service = service_of(_json_attrs(_dict(rs.get("resource")).get("attributes")))
        for ss in _list(rs, "scopeSpans"):
            for s in _list(ss, "spans"):
                count += 1
                if count > limits.spans:
                    raise OtlpError(f"more than {limits.spans} spans in one request: send fewer")
                status = _dict(s.get("status"))
                error = (
                    str(status.get("message") or "")
                    if status.get("code") in (2, "STATUS_CODE_ERROR")
                    else None
                )
                yield checked(
                    _hex(s.get("traceId"), "traceId"), _hex(s.get("spanId"), "spanId"),
                    _hex(s.get("parentSpanId") or "", "parentSpanId"), str(s.get("name") or ""),
                    (_nanos(s.get("startTimeUnixNano")), _nanos(s.get("endTimeUnixNano"))),
                    _json_attrs(s.get("attributes")), service, error, limits,
                )  # fmt: skip


def _dict(x: Any) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _list(parent: Any, key: str) -> list[dict[str, Any]]:
    found = _dict(parent).get(key) or []
    if not isinstance(found, list) or not all(isinstance(x, dict) for x in found):
        raise OtlpError(f"'{key}' must be a list of objects")
    return found


def _hex(value: Any, what: str) -> bytes:
    try:
        return bytes.fromhex(value) if isinstance(value, str) else b"\x00"
    except ValueError:
        raise OtlpError(f"{what} {value!r} is not hex") from None


def _nanos(value: Any) -> int:
    return _integer(value, "a time", "an integer of nanoseconds")


INT64 = range(-(2**63), 2**63)  # an intValue: past it, the exporter's protobuf refuses it
KIND_64 = "an integer of 64 bits"


def _integer(value: Any, what: str, kind: str = "an integer", within: range | None = None) -> int:
    """An integer as OTLP's JSON writes one (a number or its decimal text; ``within`` its
    range, when the caller does not check it); the sender's mistake otherwise, named
    (``what``, the value cut to 40 characters): 400, not a 503 an SDK sends again."""
    number: int | None = None  # true, {}, []: no integer, not 1 or 0
    if value is None or (isinstance(value, int | float | str) and not isinstance(value, bool)):
        try:
            number = int(value or 0)
        except (ValueError, OverflowError):  # 5,000 digits; 1e400 (a float's infinity)
            number = None
    if (
        number is None
        or (isinstance(value, float) and number != value)  # 1.5 is no integer, 1e3 is
        or (within is not None and number not in within)
    ):
        raise OtlpError(f"{what} {value!r:.40} is not {kind}")
    return number


def _double(value: Any, key: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):  # the sender's mistake: 400, not a 503
        raise OtlpError(
            f"attribute {key!r:.60}: doubleValue {value!r:.40} is not a number"
        ) from None


def _json_attrs(items: Any) -> list[tuple[str, Value]]:
    if not isinstance(items, list):
        return []
    found: list[tuple[str, Value]] = []
    for kv in items:
        if isinstance(kv, dict):
            key = str(kv.get("key"))
            found.append((key, _json_value(kv.get("value"), key)))
    return found


def _json_value(v: Any, key: str) -> Value:
    """An attribute's value (``key`` names it in a refusal)."""
    v = _dict(v)
    if "stringValue" in v:
        return str(v["stringValue"])
    if "boolValue" in v:
        return bool(v["boolValue"])
    if "intValue" in v:
        return _integer(v["intValue"], f"attribute {key!r:.60}: intValue", KIND_64, INT64)
    if "doubleValue" in v:
        return _double(v["doubleValue"], key)
    if "arrayValue" in v:
        return [scalar(_json_value(x, key)) for x in _dict(v["arrayValue"]).get("values") or []]
    if "kvlistValue" in v:
        return json.dumps(dict(_json_attrs(_dict(v["kvlistValue"]).get("values"))))
    return ""
