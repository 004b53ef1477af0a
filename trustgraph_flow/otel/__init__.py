"""OpenTelemetry both ways (docs/otel.md): our traces out as OTLP spans, OTLP spans in as PROV.

Rooms joined by one internal model (``spans.Span``), as the OpenTelemetry Collector does:
``otlp`` reads and writes the wire forms, ``from_prov`` turns a trace's triples into spans
(the exporter, ``exporter``), ``to_prov`` turns spans into a trace's triples (the gateway's
``/v1/traces``).
"""
