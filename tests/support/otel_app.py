"""An app instrumented with a real OpenInference instrumentor, sending its spans to a gateway.

    python -m tests.support.otel_app --llm http://127.0.0.1:P/v1 --otlp http://127.0.0.1:G \
        --key KEY [--collection C] [--document CHUNK_URI] [--embed MODEL] QUESTION

It asks the ``openai`` client (instrumented by ``openinference-instrumentation-openai``)
the question, inside an AGENT span of its own with a RETRIEVER span that found
``--document`` (and, given ``--embed``, embeds the question with that model first, an
EMBEDDING span of the instrumentor's); the OpenTelemetry SDK's OTLP/HTTP exporter sends every span as it ends (so
children arrive before their parent, in separate requests). Prints the trace id (hex).
"""

from __future__ import annotations

import argparse

from openai import OpenAI
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--llm", required=True)
    parser.add_argument("--otlp", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--collection", default="")
    parser.add_argument("--document", default="")
    parser.add_argument("--embed", default="")
    parser.add_argument("question")
    args = parser.parse_args()
    query = f"?collection={args.collection}" if args.collection else ""
    exporter = OTLPSpanExporter(
        endpoint=args.otlp.rstrip("/") + "/v1/traces" + query,
        headers={"Authorization": f"Bearer {args.key}"},
    )
    provider = TracerProvider(resource=Resource.create({"service.name": "otel-app"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    OpenAIInstrumentor().instrument(tracer_provider=provider)
    tracer = provider.get_tracer("otel-app")
    agent = {"openinference.span.kind": "AGENT", "input.value": args.question}
    with tracer.start_as_current_span("answer", attributes=agent) as root:
        if args.document:
            found = {
                "openinference.span.kind": "RETRIEVER",
                "input.value": args.question,
                "retrieval.documents.0.document.id": args.document,
                "retrieval.documents.0.document.score": 0.87,
            }
            with tracer.start_as_current_span("lookup", attributes=found):
                pass
        client = OpenAI(base_url=args.llm, api_key="not-needed")
        if args.embed:
            client.embeddings.create(model=args.embed, input=args.question)
        reply = client.chat.completions.create(
            model="stub-model", messages=[{"role": "user", "content": args.question}]
        )
        root.set_attribute("output.value", reply.choices[0].message.content or "")
        trace_id = root.get_span_context().trace_id
    provider.shutdown()
    print(format(trace_id, "032x"))


if __name__ == "__main__":
    main()
