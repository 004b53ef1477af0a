"""Store benchmark: end-to-end write throughput through Pulsar, crash recovery, trace-index latency.

    python -m bench.bench_store [--quick]

Part 1 runs the broker (pulsar-lite) and the store processor as a subprocess, publishes
pre-encoded Triples messages from this process and times until the store has committed
them all (a clean run), then repeats with a SIGKILL of the store mid-run and a restart,
and checks that every published triple is in the store. Part 2 bulk-loads traces directly
through the writer code path (wire decode + ``write_batch``, no Pulsar, to keep it quick)
and times listing the newest 50 and assembling one trace.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import pyoxigraph as ox

from bench.loading import stamp, write_decoded
from bench.summary import summary
from bench.timing import timed
from trustgraph_base.errors import RequestTimeout
from trustgraph_base.messaging import (
    SPARQL,
    TRIPLES_QUERY,
    TRIPLES_STORE,
    Bus,
    EmbeddedBroker,
    RequestClient,
    Topics,
)
from trustgraph_base.provenance import (
    RDFS,
    TG,
    agent_final_triples,
    agent_iteration_triples,
    agent_session_triples,
    graph_rag_question_triples,
    subgraph_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.rdf.terms import Triple, iri, lit
from trustgraph_base.schema import (
    Metadata,
    SparqlQueryRequest,
    Triples,
    TriplesQueryRequest,
    TriplesQueryResponse,
)
from trustgraph_base.wire import decode, encode
from trustgraph_flow.store.backends.embedded.stores import Stores
from trustgraph_flow.store.views import explain, traces

USER = "bench"
SEQ = "urn:bench:seq"


def payload(i: int, per_message: int) -> bytes:
    """One extraction-like message: labels in the default graph, a subgraph of quoted edges."""
    chunk = f"urn:trustgraph:doc:bench/p{i}/c0"
    edges, out = [], []
    for k in range((per_message - 5) // 3):
        s, o = iri(uris.entity_uri(f"e{i}-{k}")), iri(uris.entity_uri(f"e{i}-{k + 1}"))
        edges.append((s, iri(uris.relation_uri(f"r{k % 7}")), o))
        out.append(Triple(s=s, p=RDFS.label, o=lit(f"entity {i}-{k}")))
    out += subgraph_triples(
        uris.subgraph_uri(chunk), chunk, edges, uris.activity_uri(chunk, "extract")
    )
    out.append(Triple(s=iri(f"urn:bench:m{i}"), p=iri(SEQ), o=lit(i)))
    return encode(Triples(metadata=Metadata(id=f"m{i}", user=USER), triples=out))


async def start_store(url: str, prefix: str, data: Path) -> asyncio.subprocess.Process:
    return await start_processor("trustgraph_flow.store.processor", url, prefix, data, "the store")


async def start_processor(
    module: str, url: str, prefix: str, data: Path, what: str, *flags: str, level: str = "WARNING"
) -> asyncio.subprocess.Process:
    """``python -m module`` on topic prefix ``prefix`` (its data in ``data``), its own process
    as ``tg-start`` runs it; returned once it is subscribed (its ready file, beside ``data``)."""
    ready = data.parent / f"{module}.ready"
    ready.unlink(missing_ok=True)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", module, "--pulsar-url", url, "--topic-prefix", prefix,
        "--data-dir", str(data), "--ready-file", str(ready), "--log-level", level, *flags,
        stdin=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    return await until_ready(proc, ready, what)


READY_TIMEOUT = 60.0
COMMIT_TIMEOUT = 600.0


async def until_ready(
    proc: asyncio.subprocess.Process, ready: Path, what: str
) -> asyncio.subprocess.Process:
    """Wait for the ready file, with a deadline, failing at once if the process died (this
    wait had none: after a SIGKILL it once hung the bench for minutes, see docs/messaging.md)."""
    deadline = time.monotonic() + READY_TIMEOUT
    while not ready.exists():  # the process touches the file once subscribed
        if proc.returncode is not None:
            raise SystemExit(f"{what} exited with code {proc.returncode} before it was ready")
        if time.monotonic() > deadline:
            proc.kill()
            raise SystemExit(f"{what} was not ready within {READY_TIMEOUT:.0f}s")
        await asyncio.sleep(0.02)
    return proc


async def count(client: RequestClient, where: str, timeout: float = 120) -> int:  # type: ignore[type-arg]
    query = f"SELECT (COUNT(*) AS ?n) WHERE {{ {where} }}"
    resp = await client.request(SparqlQueryRequest(query=query, user=USER), timeout=timeout)
    return int(resp.bindings[0].values[0].v)


async def marked(client: RequestClient, limit: int, s: str | None = None) -> int:  # type: ignore[type-arg]
    """Messages committed (their marker triples, up to ``limit``; ``s``: that message's only).

    A triple-pattern query, answered from the live store on a reader thread: a SPARQL count
    would take a snapshot of the store after every write, which costs the writer while it
    is being measured (docs/store.md)."""
    req = TriplesQueryRequest(user=USER, s=iri(s) if s else None, p=iri(SEQ), limit=limit)
    return len((await client.request(req, timeout=5)).triples)


async def committed(
    client: RequestClient[TriplesQueryRequest, TriplesQueryResponse],
    uri: str,
    *,
    first_poll: float = 0.0,
    every: float = 0.05,
    timeout: float = 120,
) -> None:
    """Wait until the store has a triple about ``uri`` (a triple pattern on the live store:
    cheap for the store, unlike a SPARQL query's snapshot). The first poll comes
    ``first_poll`` seconds in, then one every ``every``; ``TimeoutError`` after ``timeout``."""
    req = TriplesQueryRequest(user=USER, s=iri(uri), g="*", limit=1)
    deadline = time.monotonic() + timeout
    await asyncio.sleep(first_poll)
    while time.monotonic() < deadline:
        if (await client.request(req, timeout=30)).triples:
            return
        await asyncio.sleep(every)
    raise TimeoutError(f"the store did not commit {uri} within {timeout:g}s")


async def wait_messages(client: RequestClient, n: int, at_least: int | None = None) -> None:  # type: ignore[type-arg]
    target = at_least if at_least is not None else n
    last = f"urn:bench:m{n - 1}"
    deadline = time.monotonic() + COMMIT_TIMEOUT
    while True:  # poll the last message's marker (cheap), then count every marker
        if time.monotonic() > deadline:
            raise SystemExit(
                f"the store did not commit {target} messages within {COMMIT_TIMEOUT:.0f}s"
            )
        try:
            if at_least is not None:
                if await marked(client, at_least) >= at_least:
                    return
            elif await marked(client, 1, last) and await marked(client, n) >= n:
                return
        except RequestTimeout:  # seen now and then (docs/store.md): say so, ask again
            print("    (a count request got no reply within 5 s: asked again)")
        await asyncio.sleep(0.1)


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (every thread, RocksDB's compactions too)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """CPU per triple of each process in a run: the broker, this process (the producer, and
    in a store run its polls) and the consumer (the store, or the baseline's bare consumer).
    CPU time, unlike the rate, holds on a loaded machine."""

    def __init__(self, broker: EmbeddedBroker) -> None:
        assert broker.proc is not None
        self.broker_pid = broker.proc.pid
        self.broker = cpu_seconds(self.broker_pid)
        self.producer = time.process_time()

    def line(self, triples: int, consumer: float, what: str) -> str:
        broker = cpu_seconds(self.broker_pid) - self.broker
        producer = time.process_time() - self.producer

        def us(seconds: float) -> str:
            return f"{seconds / triples * 1e6:.1f}"

        return (
            f"CPU us/triple: {what} {us(consumer)}, broker {us(broker)}, producer {us(producer)}"
            f" (load average {os.getloadavg()[0]:.1f})"
        )


async def write_run(
    broker: EmbeddedBroker, messages: list[bytes], triples: int, *, kill: bool
) -> float:
    """One run: publish everything, optionally SIGKILL + restart the store, wait for the commit."""
    url = broker.url
    prefix = f"bench{time.monotonic_ns()}"
    data = Path(tempfile.mkdtemp(prefix="bench-store-")) / "data"
    store = await start_store(url, prefix, data)
    bus = Bus(url)
    control = Bus(url)  # the polls never queue behind the published stream
    client = RequestClient(control, Topics(prefix), TRIPLES_QUERY, "bench")
    sparql = RequestClient(control, Topics(prefix), SPARQL, "bench")
    topic = Topics(prefix).topic(TRIPLES_STORE)
    try:
        await client.start()
        meter = CpuMeter(broker)
        cpu_before = cpu_seconds(store.pid)
        started = time.perf_counter()
        sends = asyncio.gather(*(bus.publish(topic, m, batching=True) for m in messages))
        if kill:
            await wait_messages(client, len(messages), at_least=len(messages) * 2 // 5)
            store.send_signal(signal.SIGKILL)
            await store.wait()
            # pulsar-lite keeps a killed consumer's messages until it restarts, unless the
            # connection is closed for it (tg-start's relays, docs/messaging.md); the bench
            # connects directly, so it restarts the broker, else the new store is refused.
            broker.stop()
            broker.start()
            killed_at = time.perf_counter() - started
            store = await start_store(url, prefix, data)
        await sends
        published = time.perf_counter() - started
        await wait_messages(client, len(messages))
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(store.pid) - cpu_before
        # what was published: the store's own graphs (urn:tg:…: its log, its migration marks
        # made at the restart) are not the messages' triples
        stored = await count(sparql, "{ ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } }")
        own = await count(sparql, 'GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "urn:tg:"))')
        stored -= own
        label = "with SIGKILL+restart" if kill else "clean run"
        print(
            f"  {label}: {len(messages)} msgs, {triples} triples published in {published:.2f}s, "
            f"committed in {elapsed:.2f}s -> {triples / elapsed:,.0f} triples/s"
        )
        if not kill:
            print(f"    {meter.line(triples, cpu, 'store')}")
        if kill:
            print(
                f"    store killed at {killed_at:.2f}s and restarted; "
                f"stored {stored} of {triples} published: {'ALL PRESENT' if stored == triples else 'MISMATCH'}"
            )
            summary(
                "crash: store SIGKILLed mid-ingest, restarted",
                f"{stored:,} of {triples:,} stored",
                "every acked triple",
                f"{triples / elapsed:,.0f} triples/s including the restart",
            )
        return elapsed
    finally:
        store.terminate()
        await store.wait()
        await client.close()
        await sparql.close()
        await control.close()
        await bus.close()


async def raw_consume(url: str, topic: str, n: int, ready: str) -> None:
    """The baseline consumer: receive and ack ``n`` messages, nothing else (no decode, no store)."""
    bus = Bus(url)
    consumer = await bus.subscribe(topic, "raw")
    Path(ready).write_text("ready")
    started = time.process_time()
    for _ in range(n):
        await consumer.acknowledge(await consumer.receive())
    print(time.process_time() - started, flush=True)  # its CPU, for the baseline's figures
    await bus.close()


async def raw_run(broker: EmbeddedBroker, messages: list[bytes], triples: int) -> float:
    """Pulsar alone: publish the same messages, a bare consumer subprocess receives and acks them."""
    topic = Topics(f"raw{time.monotonic_ns()}").topic(TRIPLES_STORE)
    ready = Path(tempfile.mkdtemp(prefix="bench-raw-")) / "ready"
    url = broker.url
    consumer = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.bench_store", "--raw-consume", url, topic, str(len(messages)), str(ready),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    await until_ready(consumer, ready, "the baseline consumer")
    bus = Bus(url)
    meter = CpuMeter(broker)
    started = time.perf_counter()
    await asyncio.gather(*(bus.publish(topic, m, batching=True) for m in messages))
    out, _ = await consumer.communicate()
    elapsed = time.perf_counter() - started
    await bus.close()
    print(
        f"  baseline, Pulsar only (bare consumer, no decode, no store): {len(messages)} msgs in "
        f"{elapsed:.2f}s -> {triples / elapsed:,.0f} triples/s"
    )
    print(f"    {meter.line(triples, float(out.split()[-1]), 'bare consumer')}")
    return elapsed


TEMPLATE_TIME = "2000-01-01T00:00:00.000Z"


def trace_templates() -> dict[str, str]:
    """Wire JSON of one GraphRAG trace and one agent trace (with a GraphRAG sub-trace), id ``SID``."""
    q = uris.graph_rag_question_uri("gSID")
    rag = graph_rag_question_triples(q, "question SID", TEMPLATE_TIME)
    rag += synthesis_triples(uris.synthesis_uri(q), q, "answer SID")
    a = uris.agent_session_uri("aSID")
    i1, sub = uris.agent_iteration_uri(a, 1), uris.graph_rag_question_uri("sSID")
    ag = agent_session_triples(a, "agent question SID", TEMPLATE_TIME)
    ag += agent_iteration_triples(i1, a, "think", "knowledge-query", {"q": "SID"}, "seen")
    ag += graph_rag_question_triples(sub, "sub SID", TEMPLATE_TIME, i1)
    ag += synthesis_triples(uris.synthesis_uri(sub), sub, "sub answer")
    ag += agent_final_triples(uris.agent_final_uri(a), i1, "answer SID")

    def wrap(ts: list[Triple]) -> str:
        return encode(Triples(metadata=Metadata(id="SID", user=USER), triples=ts)).decode()

    return {"graph-rag": wrap(rag), "agent": wrap(ag)}


def trace_message(templates: dict[str, str], i: int) -> bytes:
    """Trace ``i``: GraphRAG, or every 10th an agent whose sub-trace must not be listed."""
    text = templates["agent" if i % 10 == 0 else "graph-rag"]
    return text.replace("SID", str(i)).replace(TEMPLATE_TIME, stamp(i)).encode()


def bulk_load(stores: Stores, templates: dict[str, str], n_traces: int) -> None:
    """Write ``n_traces`` traces made from ``templates`` through decode + write_batch."""
    write_decoded(stores, (trace_message(templates, i) for i in range(n_traces)))


def index_bench(n_traces: int) -> None:
    """Bulk-load traces through decode + write_batch, then time the explain reads."""
    stores = Stores(Path(tempfile.mkdtemp(prefix="bench-traces-")))
    started = time.perf_counter()
    bulk_load(stores, trace_templates(), n_traces)
    handle = stores.get(USER, "default")
    assert handle is not None
    store = handle.store
    assert isinstance(store, ox.Store)  # Stores (the embedded backend) opens pyoxigraph stores
    load = time.perf_counter() - started
    print(f"  bulk-loaded {n_traces} top-level traces ({len(store)} quads) in {load:.1f}s")
    list50, list95 = timed(lambda: traces.list_traces(handle, 50), 200)
    print(
        f"  list newest 50 of {n_traces}: p50 {list50:.2f} ms, p95 {list95:.2f} ms (goal <= 20 ms)"
    )
    agent_id = uris.agent_session_uri(f"a{n_traces // 20 * 10}")
    get50, get95 = timed(lambda: explain.get_trace(handle, agent_id, True), 100)
    print(
        f"  get-trace (agent + nested GraphRAG sub-trace): p50 {get50:.2f} ms, p95 {get95:.2f} ms"
    )
    sparql = (
        f"SELECT ?q ?t WHERE {{ GRAPH <urn:graph:retrieval> {{ ?q a <{TG.Question.i}> ; "
        "<http://www.w3.org/ns/prov#startedAtTime> ?t } } ORDER BY DESC(?t) LIMIT 50"
    )
    baseline, _ = timed(lambda: list(store.query(sparql)), 3)  # type: ignore[arg-type]  # a SELECT: solutions, not a bool
    print(f"  for comparison, the same list as SPARQL ORDER BY ... LIMIT 50: {baseline:.0f} ms")
    summary(
        f"list newest 50 of {n_traces:,} traces (server)",
        f"p50 {list50:.2f} ms, p95 {list95:.2f} ms",
        "<= 20 ms",
        f"SPARQL ORDER BY ... LIMIT 50 in the same run: {baseline:.0f} ms",
    )
    summary(
        f"get-trace at {n_traces:,} traces (server, with provenance)",
        f"p50 {get50:.2f} ms, p95 {get95:.2f} ms",
        "-",
        "agent trace with a nested GraphRAG sub-trace",
    )
    stores.close()


async def main_async(quick: bool, write_only: bool) -> None:
    n_messages, per_message = (1_500, 50) if quick else (10_000, 50)
    messages = [payload(i, per_message) for i in range(n_messages)]
    triples = sum(len(decode(Triples, m).triples) for m in messages[:1]) * n_messages
    print(
        f"Write path: {n_messages} Triples messages x {triples // n_messages} triples, "
        "producer in this process, store as a subprocess, embedded broker"
    )
    with (
        tempfile.TemporaryDirectory(prefix="bench-broker-") as tmp,
        EmbeddedBroker(Path(tmp)) as broker,
    ):
        raw = await raw_run(broker, messages, triples)
        clean = await write_run(broker, messages, triples, kill=False)
        print(f"  store / baseline: {raw / clean:.0%} of the Pulsar-only rate")
        summary(
            "ingest: producers -> Pulsar -> committed store",
            f"{triples / clean:,.0f} triples/s",
            ">= 50,000 triples/s",
            f"{raw / clean:.0%} of the Pulsar-only rate in the same run "
            f"({triples / raw:,.0f} triples/s)",
        )
        await write_run(broker, messages, triples, kill=True)
    if write_only:
        return
    n_traces = 5_000 if quick else 100_000
    print(f"Trace index: {n_traces} traces loaded through the writer code path (no Pulsar)")
    index_bench(n_traces)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_store")
    parser.add_argument("--quick", action="store_true", help="a smaller run (< 60 s)")
    parser.add_argument(
        "--raw-consume", nargs=4, metavar=("URL", "TOPIC", "N", "READY"), help=argparse.SUPPRESS
    )
    parser.add_argument("--write-only", action="store_true", help="skip the trace-index part")
    args = parser.parse_args()
    if args.raw_consume:
        url, topic, n, ready = args.raw_consume
        asyncio.run(raw_consume(url, topic, int(n), ready))
        return
    started = time.perf_counter()
    asyncio.run(main_async(args.quick, args.write_only))
    print(f"total {time.perf_counter() - started:.1f}s")


if __name__ == "__main__":
    main()
