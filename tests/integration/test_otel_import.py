"""OTLP import end to end: an app instrumented by the real OpenInference instrumentor for the
``openai`` client sends its spans to the gateway's ``/v1/traces`` with an API key; its trace
is listed, shown (with the retrieved chunk's page and document), exported and read by the
viewer's calls like any other; bad bodies are refused in one line and harm no one; the round
trip OTLP → PROV → OTLP through the store and the exporter keeps ids, parents, documents and
tokens."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from google.rpc.status_pb2 import Status

from tests.support.openai_stub import OpenAIStub
from tests.support.otlp_receiver import OtlpReceiver
from tests.support.poll import eventually
from tests.support.stack import ADMIN, Stack, create_key, run_argv
from trustgraph_base.messaging import TRIPLES_STORE, Processor
from trustgraph_base.provenance.extraction import chunk_triples, document_triples, page_triples
from trustgraph_base.schema import Metadata, Triples
from trustgraph_flow.otel import exporter, otlp
from trustgraph_flow.otel.spans import Span
from trustgraph_flow.otel.to_prov import question_uri
from trustgraph_flow.store.processor import proc as store

DOC = "urn:trustgraph:doc:otel-facts"
CHUNK = f"{DOC}/p2/c0"
ODD_CHUNK = f"{DOC}/p\u00b2/c0"
QUESTION = "What is the capital of France?"
EMBEDDER = "text-embedding-3-small"
VIEWER = {"X-TG-Viewer": "1"}


async def world(stack: Stack, user: str) -> None:
    """A document with a page and a chunk in ``user``'s default collection (its provenance)."""
    triples = [
        *document_triples(DOC, "OTel facts", "application/pdf"),
        *page_triples(f"{DOC}/p2", DOC, 2, "urn:test:decoder"),
        *chunk_triples(CHUNK, f"{DOC}/p2", 0, 0, 40, "urn:test:chunker"),
    ]
    await stack.publish(
        TRIPLES_STORE, Triples(metadata=Metadata(id=DOC, user=user), triples=triples)
    )


@pytest.fixture
async def stack(pulsar_url: str, prefix: str, tmp_path: Path) -> AsyncIterator[Stack]:
    async with Stack(pulsar_url, prefix, [store], data_dir=tmp_path, token=ADMIN) as running:
        yield running


async def send_app_trace(
    stack: Stack, key: str, llm: str, document: str = CHUNK, *also: str
) -> str:
    """The instrumented app run once against ``stack`` (its retriever finding ``document``;
    ``also``: more of its arguments); its OTel trace id (hex)."""
    argv = [sys.executable, "-m", "tests.support.otel_app", "--llm", llm, "--otlp", stack.url]
    done = await run_argv([*argv, "--key", key, "--document", document, *also, QUESTION])
    assert done.code == 0, done.stderr
    return done.stdout.strip()


async def test_an_instrumented_apps_trace_shows_here_with_its_lineage(stack: Stack) -> None:
    await world(stack, "alice")
    key = await create_key(stack, "alice")
    as_alice = {"TRUSTGRAPH_TOKEN": key}
    async with OpenAIStub(default="Paris is the capital of France.") as llm:
        trace_id = await send_app_trace(stack, key, llm.base_url, CHUNK, "--embed", EMBEDDER)
    q = question_uri(bytes.fromhex(trace_id))
    listed = await eventually(
        lambda: stack.cli("tg-list-explain-traces", "--format", "json", env=as_alice),
        lambda r: q in r.stdout and '"complete"' in r.stdout,
    )
    (row,) = json.loads(listed.stdout)
    assert (row["id"], row["type"], row["question"]) == (q, "agent", QUESTION)
    shown = await stack.cli(
        "tg-show-explain-trace", q, "--format", "json", "--show-provenance", env=as_alice
    )
    assert shown.code == 0, shown.stderr
    view = json.loads(shown.stdout)
    assert view["answer"] == "Paris is the capital of France."
    lookup, embedded, chat = view["steps"]
    assert (lookup["thought"], lookup["action"]) == ("lookup", "retriever")
    (sub,) = lookup["subtraces"]
    assert sub["answer"] == "1 document retrieved"  # was "1 documents retrieved"
    (chunk,) = sub["chunks"]
    assert chunk["uri"] == CHUNK and chunk["score"] == 0.87
    (source,) = chunk["sources"]
    assert (source["page_number"], source["document"], source["title"]) == (2, DOC, "OTel facts")
    assert chat["action"] == "llm" and chat["thought"] == "ChatCompletion"
    (metrics,) = [m for stage, m in view["metrics"].items() if stage == "i3"]
    assert (
        metrics["model"] == "stub-model" and metrics["in_token"] > 0 and metrics["out_token"] == 6
    )
    # the instrumentor names an embedding's model by OpenInference's embedding.model_name
    assert embedded["action"] == "embedding", embedded
    assert view["metrics"]["i2"]["model"] == EMBEDDER, view["metrics"]["i2"]
    text = await stack.cli("tg-show-explain-trace", q, "--show-provenance", env=as_alice)
    assert QUESTION in text.stdout and "OTel facts" in text.stdout, text.stdout
    # the retriever step observed nothing in words: it says so, not an empty label
    assert not any(line.endswith("Observation:") for line in text.stdout.splitlines())
    # lineage: the chunk's page lists the imported answer; diff against a second app trace
    used = await stack.cli("tg-show-source-usage", f"{DOC}/p2", env=as_alice)
    assert used.code == 0 and q.rsplit(":", 1)[-1] in used.stdout, used.stdout + used.stderr
    async with OpenAIStub(default="Paris.") as llm:
        other = question_uri(bytes.fromhex(await send_app_trace(stack, key, llm.base_url)))
    diffed = await eventually(
        lambda: stack.cli("tg-diff-explain-traces", q, other, "--format", "json", env=as_alice),
        lambda r: r.code == 0,
    )
    chunks = json.loads(diffed.stdout)["chunks"]
    assert CHUNK in json.dumps(chunks["both"]), diffed.stdout  # the two answers share it
    exported = await stack.cli("tg-export-explain-trace", q, env=as_alice)
    assert exported.code == 0 and trace_id in exported.stdout and "otelSpan" in exported.stdout
    # the viewer's calls (its page uses the same REST API, signed in with the key)
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        await http.post(stack.url + "viewer/login", json={"key": key}, headers=VIEWER)
        body = {"operation": "get-trace", "id": q, "include_provenance": True}
        async with http.post(
            stack.url + "api/v1/flow/default/service/explain", json=body, headers=VIEWER
        ) as resp:
            seen = (await resp.json())["trace"]
    assert seen["question"] == QUESTION and len(seen["steps"]) == 3
    # bob's key sees none of it
    bob = await create_key(stack, "bob")
    others = await stack.cli(
        "tg-list-explain-traces", "--format", "json", env={"TRUSTGRAPH_TOKEN": bob}
    )
    assert others.code == 0 and q not in others.stdout


async def refusal(
    stack: Stack, body: bytes, content_type: str, key: str | None, query: str = ""
) -> tuple[int, int, str]:
    """The status, google.rpc code and message of an OTLP answer, its body read in the
    request's encoding as OTLP/HTTP requires (protobuf for protobuf, else JSON); code 0
    and no message for a 200."""
    headers = {"Content-Type": content_type}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    async with aiohttp.ClientSession() as http:
        data = io.BytesIO(body)  # aiohttp warns of large raw bytes
        async with http.post(stack.url + "v1/traces" + query, data=data, headers=headers) as resp:
            if resp.status == 200:
                return 200, 0, ""
            if content_type == otlp.PROTOBUF:
                assert resp.content_type == otlp.PROTOBUF
                status = Status.FromString(await resp.read())
                return resp.status, status.code, status.message
            said = await resp.json()
            return resp.status, said["code"], said["message"]


async def post(
    stack: Stack, body: bytes, content_type: str, key: str | None, query: str = ""
) -> tuple[int, str]:
    status, _, message = await refusal(stack, body, content_type, key, query)
    return status, message


def one_span(**attrs: str) -> Span:
    return Span(b"\x07" * 16, b"\x01" * 8, "agent", 1, 2, b"", {"input.value": "q", **attrs})


async def test_bad_bodies_are_refused_in_one_line_and_harm_no_one(stack: Stack) -> None:
    key = await create_key(stack, "alice", "--collection", "default")
    good = otlp.encode([one_span()])
    # google.rpc codes: UNAUTHENTICATED, INVALID_ARGUMENT, RESOURCE_EXHAUSTED, PERMISSION_DENIED
    status, code, said = await refusal(stack, good, otlp.PROTOBUF, None)
    assert (status, code) == (401, 16) and "missing, unknown or revoked token" in said
    assert (await refusal(stack, good, otlp.JSON, None))[:2] == (401, 16)
    status, said = await post(stack, good, "text/plain", key)
    assert status == 415 and "is not OTLP/HTTP" in said
    assert (await refusal(stack, good, "text/plain", key))[:2] == (415, 3)
    status, said = await post(stack, otlp.encode([one_span(big="x" * 100_000)]), otlp.PROTOBUF, key)
    assert status == 400 and "attribute 'big' holds 100000 characters" in said
    cycle = [
        Span(b"\x07" * 16, b"\x01" * 8, "a", 1, 2, b"\x02" * 8),
        Span(b"\x07" * 16, b"\x02" * 8, "b", 1, 2, b"\x01" * 8),
    ]
    status, said = await post(stack, otlp.encode(cycle), otlp.PROTOBUF, key)
    assert status == 400 and "its own ancestor" in said
    status, said = await post(stack, b'{"resourceSpans": 3}', otlp.JSON, key)
    assert status == 400 and "'resourceSpans' must be a list" in said
    status, code, said = await refusal(stack, b"\x0a" * (5 * 1024 * 1024), otlp.PROTOBUF, key)
    assert status == 413 and code == 8 and said
    status, code, said = await refusal(stack, good, otlp.PROTOBUF, key, "?collection=work")
    assert status == 403 and code == 7 and "may not use collection 'work'" in said
    status, code, said = await refusal(stack, b'{"resourceSpans": 3}', otlp.JSON, key)
    assert (status, code) == (400, 3) and "'resourceSpans' must be a list" in said
    # A time no clock gives (past year 9999, before 1970) is the sender's mistake: 400, which
    # an SDK does not retry, not a 503 it would send again and again.
    for when in ("99999999999999999999999", "-5"):
        span = {"traceId": "5b" * 16, "spanId": "ee" * 8, "name": "x", "startTimeUnixNano": when}
        body = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()
        status, code, said = await refusal(stack, body, otlp.JSON, key)
        assert (status, code) == (400, 3), (status, said)
        assert said == (
            f"span {'ee' * 8} of trace {'5b' * 16}: its start time {when} is not a time "
            "(nanoseconds since 1970, 0 to 2^64-1)"
        ), said
    # A number sent as text that is not one Python reads (a superscript '²', which isdigit
    # takes and int() refuses; 5,000 digits) is left out: taken, not a 503 an SDK retries.
    odd = [
        Span(b"\x0a" * 16, b"\x01" * 8, "agent", 1, 4, b"", {"input.value": "q"}),
        Span(b"\x0a" * 16, b"\x02" * 8, "lookup", 2, 3, b"\x01" * 8, {
            "openinference.span.kind": "RETRIEVER", "retrieval.documents.\u00b2.document.id": "d"}),
        Span(b"\x0a" * 16, b"\x03" * 8, "llm", 2, 3, b"\x01" * 8, {
            "openinference.span.kind": "LLM", "llm.token_count.prompt": "\u00b2",
            "llm.token_count.completion": "9" * 5000}),
    ]  # fmt: skip
    assert await post(stack, otlp.encode(odd), otlp.PROTOBUF, key) == (200, "")
    # A GenAI document score past a float's range is left out (float() raised: a 503); a
    # doubleValue that is no number, or an intValue no integer, is the sender's mistake (400),
    # not a 503 either, said of the attribute (an intValue was called "a time").
    huge = [
        Span(b"\x0b" * 16, b"\x01" * 8, "agent", 1, 4, b"", {"input.value": "q"}),
        Span(b"\x0b" * 16, b"\x02" * 8, "lookup", 2, 3, b"\x01" * 8, {
        "openinference.span.kind": "RETRIEVER",
        "gen_ai.retrieval.documents": '[{"id": "d", "score": 1' + "0" * 400 + "}]"}),
    ]  # fmt: skip
    assert await post(stack, otlp.encode(huge), otlp.PROTOBUF, key) == (200, "")
    # A JSON number past a float's range (1e400) is infinity to Python, which int() refused
    # with OverflowError (a 503); an intValue past int64 was taken, and the trace then never
    # exported (protobuf's int64 refused it).
    for value, wrong in [
        ('{"doubleValue": "abc"}', "attribute 'k': doubleValue 'abc' is not a number"),
        ('{"doubleValue": 1' + "0" * 400 + "}", "attribute 'k': doubleValue 1000"),
        ('{"intValue": "12ab"}', "attribute 'k': intValue '12ab' is not an integer"),
        ('{"intValue": "' + "9" * 5000 + '"}', "attribute 'k': intValue '9999"),
        ('{"intValue": 1e400}', "attribute 'k': intValue inf is not an integer of 64 bits"),
        ('{"intValue": "1' + "0" * 30 + '"}', "intValue '1" + "0" * 30 + "' is not an integer"),
        ('{"intValue": 1.5}', "attribute 'k': intValue 1.5 is not an integer"),
        ('{"intValue": true}', "attribute 'k': intValue True is not an integer"),  # was 1
        ('{"intValue": {}}', "attribute 'k': intValue {} is not an integer"),  # was 0
        (None, "a time inf is not an integer of nanoseconds"),
    ]:
        attr = '{"key": "k", "value": ' + value + "}" if value else '{"key": "k", "value": {}}'
        when = "1e400" if value is None else "1"
        opening = '{"traceId": "' + "5c" * 16 + '", "spanId": "' + "ee" * 8 + '", "name": "x", '
        body = ('{"resourceSpans": [{"scopeSpans": [{"spans": [' + opening
                + '"startTimeUnixNano": ' + when + ', '
                + '"attributes": [' + attr + "]}]}]}]}").encode()  # fmt: skip
        status, code, said = await refusal(stack, body, otlp.JSON, key)
        assert (status, code) == (400, 3) and wrong in said and len(said) < 200, (status, said)
    # an orphan (its parent never sent) is taken, under the question; the good body still lands
    orphan = Span(b"\x08" * 16, b"\x03" * 8, "orphan", 1, 2, b"\x09" * 8, {"input.value": "o"})
    assert await post(stack, otlp.encode([orphan]), otlp.PROTOBUF, key) == (200, "")
    assert await post(stack, good, otlp.PROTOBUF, key) == (200, "")
    await eventually(
        lambda: stack.cli("tg-list-explain-traces", env={"TRUSTGRAPH_TOKEN": key}),
        lambda r: question_uri(b"\x07" * 16).rsplit(":", 1)[-1] in r.stdout,
    )


async def test_round_trip_otlp_prov_otlp(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    async with OtlpReceiver() as receiver:
        settings = {"otel-export": {"otlp_endpoint": receiver.url, "otlp_linger": 0.2}}
        procs: list[Processor[Any, Any]] = [store, exporter.proc]
        async with Stack(
            pulsar_url, prefix, procs, data_dir=tmp_path, token=ADMIN, settings=settings
        ) as stack:
            key = await create_key(stack, "alice")
            async with OpenAIStub(default="Paris is the capital of France.") as llm:
                # An app's own document id, shaped as a chunk's but with a page '²' (a digit
                # to str.isdigit, not to int()): kept, and the trace exported with it.
                trace_id = await send_app_trace(stack, key, llm.base_url, ODD_CHUNK)
            back = await receiver.wait_for(
                lambda got: any(s.trace_id.hex() == trace_id and not s.parent_id for s in got)
            )
    spans = {s.span_id: s for s in back if s.trace_id.hex() == trace_id}
    (root,) = [s for s in spans.values() if not s.parent_id]
    assert (
        root.name == "answer"
        and root.attributes["output.value"] == "Paris is the capital of France."
    )
    lookup, chat = sorted((s for s in spans.values() if s.parent_id), key=lambda s: s.start_ns)
    assert lookup.parent_id == root.span_id and chat.parent_id == root.span_id
    assert lookup.attributes["retrieval.documents.0.document.id"] == ODD_CHUNK
    assert lookup.attributes["retrieval.documents.0.document.score"] == 0.87
    assert (
        chat.attributes["llm.token_count.completion"] == 6
        and chat.attributes["gen_ai.usage.output_tokens"] == 6
    )
    assert chat.attributes["llm.model_name"] == "stub-model"
    assert len(spans) == 3
