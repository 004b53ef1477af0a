"""OTLP/HTTP trace bodies, protobuf and JSON, to and from the internal model, checked.

Encoding uses the ``opentelemetry-proto`` classes (the exporter's form: protobuf). Reading
takes either form; JSON as the OTLP/HTTP specification writes it (lowerCamelCase fields,
trace and span ids in hex, 64-bit integers as numbers or strings). Every body read is
checked against ``LIMITS`` and for parent cycles: ``OtlpError`` names what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import (
    AnyValue,
    ArrayValue,
    InstrumentationScope,
    KeyValue,
)
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1 import trace_pb2

from trustgraph_flow.otel.checks import (
    LIMITS,
    Limits,
    OtlpError,
    check_parents,
    checked,
    scalar,
    service_of,
)
from trustgraph_flow.otel.conventions import SERVICE_NAME
from trustgraph_flow.otel.otlp_json import from_json
from trustgraph_flow.otel.spans import Span, Value

PROTOBUF = "application/x-protobuf"
JSON = "application/json"


def encode(spans: Iterable[Span], service: str = SERVICE_NAME) -> bytes:
    """An ``ExportTraceServiceRequest`` holding ``spans`` as protobuf bytes."""
    out = []
    for s in spans:
        span = trace_pb2.Span(
            trace_id=s.trace_id,
            span_id=s.span_id,
            parent_span_id=s.parent_id,
            name=s.name,
            kind=trace_pb2.Span.SPAN_KIND_INTERNAL,
            start_time_unix_nano=s.start_ns,
            end_time_unix_nano=s.end_ns,
            attributes=[KeyValue(key=k, value=_any(v)) for k, v in s.attributes.items()],
        )
        if s.error is not None:
            span.status.code = trace_pb2.Status.STATUS_CODE_ERROR
            span.status.message = s.error
        out.append(span)
    resource = Resource(attributes=[KeyValue(key="service.name", value=_any(service))])
    scope = trace_pb2.ScopeSpans(scope=InstrumentationScope(name="explaingraph"), spans=out)
    request = ExportTraceServiceRequest(
        resource_spans=[trace_pb2.ResourceSpans(resource=resource, scope_spans=[scope])]
    )
    return bytes(request.SerializeToString())


def _any(value: Value) -> AnyValue:
    if isinstance(value, list):
        return AnyValue(array_value=ArrayValue(values=[_any(v) for v in value]))
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    return AnyValue(string_value=value)


def decode(body: bytes, content_type: str, limits: Limits = LIMITS) -> list[Span]:
    """The spans of an OTLP/HTTP trace body (``content_type`` without parameters)."""
    if content_type == PROTOBUF:
        try:
            request = ExportTraceServiceRequest.FromString(body)
        except DecodeError as exc:
            raise OtlpError(f"not an OTLP protobuf trace request: {exc}") from None
        spans = list(_from_protobuf(request, limits))
    elif content_type == JSON:
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            raise OtlpError(f"malformed JSON body: {exc}") from None
        spans = list(from_json(data, limits))
    else:
        raise OtlpError(
            f"Content-Type {content_type or '(none)'!r} is not OTLP/HTTP: send {PROTOBUF} or {JSON}"
        )
    check_parents(spans)
    return spans


def _from_protobuf(request: ExportTraceServiceRequest, limits: Limits) -> Iterator[Span]:
    count = 0
    for rs in request.resource_spans:
        service = service_of([(kv.key, _value(kv.value)) for kv in rs.resource.attributes])
        for ss in rs.scope_spans:
            for s in ss.spans:
                count += 1
                if count > limits.spans:
                    raise OtlpError(f"more than {limits.spans} spans in one request: send fewer")
                attrs = [(kv.key, _value(kv.value)) for kv in s.attributes]
                error = (
                    s.status.message
                    if s.status.code == trace_pb2.Status.STATUS_CODE_ERROR
                    else None
                )
                yield checked(
                    bytes(s.trace_id), bytes(s.span_id), bytes(s.parent_span_id), s.name,
                    (int(s.start_time_unix_nano), int(s.end_time_unix_nano)), attrs, service,
                    error, limits,
                )  # fmt: skip


def _value(v: AnyValue) -> Value:
    kind = v.WhichOneof("value")
    if kind == "string_value":
        return v.string_value  # a str already
    if kind == "bool_value":
        return bool(v.bool_value)
    if kind == "int_value":
        return int(v.int_value)
    if kind == "double_value":
        return float(v.double_value)
    if kind == "array_value":
        return [scalar(_value(x)) for x in v.array_value.values]
    if kind == "bytes_value":
        return bytes(v.bytes_value).hex()
    if kind == "kvlist_value":
        return json.dumps({kv.key: _value(kv.value) for kv in v.kvlist_value.values})
    return ""


__all__ = ["JSON", "LIMITS", "PROTOBUF", "Limits", "OtlpError", "decode", "encode"]
