"""The gateway's OTLP mapping in process, µs of CPU a span, and the digest of what it sends:
``otel_import_rate``'s app traces (2,000 traces, 20,000 spans, requests of 50 traces, as
protobuf or JSON) read, checked, mapped to rows, packed as N-Quads and made the store
topic's messages, as ``gateway/otlp.py`` does, under the serving processes' collector
settings; the sha256 of every message's bytes says whether two trees send the same.

    python -m bench.otel_mapping [--json] [--rounds N] [--against DIR]

With ``--against DIR`` the same run maps in two warm worker processes, this tree's and one
with DIR's packages first on ``PYTHONPATH`` (DIR need not have this bench), alternated run
by run (the order reversed every other round), so both meet the same load; it prints each
tree's runs, the ratio of their best and their median, and whether their digests agree.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
RUN = b"\x11" * 8  # the traces' ids' second half: fixed, so every run maps the same bytes
TRACES, PER_REQUEST, NOW = 2_000, 50, 1_765_000_000_000_000_000


def bodies(as_json: bool) -> list[bytes]:
    """The requests, each 50 app traces (500 spans)."""
    import json

    import bench.otel_import_rate as rate
    from trustgraph_flow.otel import otlp

    rate.RUN = RUN
    out = []
    for r in range(0, TRACES, PER_REQUEST):
        spans = [s for n in range(r, r + PER_REQUEST) for s in rate.app_trace(n, NOW)]
        if not as_json:
            out.append(otlp.encode(spans))
            continue

        def value(v: object) -> dict[str, object]:
            if isinstance(v, int):
                return {"intValue": str(v)}
            return {"doubleValue": v} if isinstance(v, float) else {"stringValue": v}

        body = {"resourceSpans": [{"scopeSpans": [{"spans": [{
            "traceId": s.trace_id.hex(), "spanId": s.span_id.hex(),
            "parentSpanId": s.parent_id.hex(), "name": s.name,
            "startTimeUnixNano": str(s.start_ns), "endTimeUnixNano": str(s.end_ns),
            "attributes": [{"key": k, "value": value(v)} for k, v in s.attributes.items()],
        } for s in spans]}]}]}  # fmt: skip
        out.append(json.dumps(body).encode())
    return out


def mapped(requests: list[bytes], as_json: bool) -> tuple[float, str]:
    """µs of CPU a span for mapping every request as the gateway does, and its digest."""
    from trustgraph_base.schema import Metadata
    from trustgraph_flow.gateway.otlp import packed, wire
    from trustgraph_flow.otel import otlp
    from trustgraph_flow.otel.steps import Steps
    from trustgraph_flow.otel.to_prov import trace_rows

    content_type = otlp.JSON if as_json else otlp.PROTOBUF
    steps, digest, spans = Steps(), hashlib.sha256(), 0
    started = time.process_time()
    for body in requests:
        read = otlp.decode(body, content_type)
        for uri, text in packed(trace_rows(read, steps)):
            for payload in wire(Metadata(id=uri, user="trustgraph", collection="default"), text):
                digest.update(payload)
        spans += len(read)
    return 1e6 * (time.process_time() - started) / spans, digest.hexdigest()[:16]


def worker(path: Path, as_json: bool) -> None:
    """Map the requests in ``path`` once to warm up, then once for each line read; print
    each run's figure."""
    from trustgraph_base.gcpause import serving_collector

    requests = pickle.loads(path.read_bytes())
    with serving_collector():
        mapped(requests, as_json)
        print("ready", flush=True)
        for _ in sys.stdin:
            us, digest = mapped(requests, as_json)
            print(f"{us:.2f} {digest}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="JSON bodies (default protobuf)")
    parser.add_argument("--rounds", type=int, default=5, help="runs of each tree (default 5)")
    parser.add_argument("--against", type=Path, help="another tree, alternated with this one")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.json)
    trees = {"this tree": HERE} | ({"against": args.against.resolve()} if args.against else {})
    saved = tempfile.NamedTemporaryFile(prefix="otel-mapping-", suffix=".pickle")
    saved.write(pickle.dumps(bodies(args.json)))  # the same requests for both trees
    saved.flush()
    flags = ["--worker", saved.name] + (["--json"] if args.json else [])
    workers = {
        name: subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), *flags],  # this file, by path:
            cwd=tree,  # the tree's packages are the ones imported
            env={**os.environ, "PYTHONPATH": str(tree)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name, tree in trees.items()
    }
    runs: dict[str, list[float]] = {name: [] for name in workers}
    digests: dict[str, set[str]] = {name: set() for name in workers}
    loads = [os.getloadavg()[0]]
    for n in range(args.rounds):
        for name, proc in workers.items() if n % 2 == 0 else reversed(workers.items()):
            assert proc.stdin is not None and proc.stdout is not None
            if not runs[name] and proc.stdout.readline().strip() != "ready":
                raise SystemExit(f"the worker of {trees[name]} failed")
            proc.stdin.write("go\n")
            proc.stdin.flush()
            us, digest = proc.stdout.readline().split()
            runs[name].append(float(us))
            digests[name].add(digest)
        loads.append(os.getloadavg()[0])
    for proc in workers.values():
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    saved.close()
    form = "JSON" if args.json else "protobuf"
    print(
        f"\nthe gateway's mapping, {TRACES:,} app traces ({form}); load {min(loads):.1f}-{max(loads):.1f}"
    )
    for name, figures in runs.items():
        print(
            f"{name} ({trees[name]}): best {min(figures):.1f}, median {statistics.median(figures):.1f} "
            f"µs a span; runs {', '.join(f'{x:.1f}' for x in figures)}; digest {', '.join(sorted(digests[name]))}"
        )
    if args.against:
        mine, other = runs["this tree"], runs["against"]
        same = (
            "the same messages"
            if digests["this tree"] == digests["against"]
            else "DIFFERENT messages"
        )
        print(
            f"this tree ÷ against: best {min(mine) / min(other):.2f}, median "
            f"{statistics.median(mine) / statistics.median(other):.2f}; {same}"
        )


if __name__ == "__main__":
    main()
