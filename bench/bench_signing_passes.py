"""The signing pass's cost as a store goes on signing (issue 30), in process, CPU time.

A store signs every ``signing_delay`` (0.2 s) for as long as it runs, so a pass must cost
the same at its ten-thousandth time as at its first. The part of a pass that puts the
writer's record in the store's normal form (``governance/written.py``: its lines sorted,
those with a typed literal our writers do not make through a store in memory) is run on
10 agent sessions' batches (``bench_signing``'s, 3 iterations, as the writer records them,
each with such a literal), in blocks; each
block's CPU per pass is printed, and the last block's against the first's. Until 094db14
that store was one for the process, cleared after each pass, and kept every quad it had
been given: each pass cost more than the one before.

    python -m bench.bench_signing_passes [--quick] [--blocks 10] [--passes 1000]
"""

from __future__ import annotations

import argparse
import time

import pyoxigraph as ox

from bench.bench_signing import session
from bench.summary import summary
from trustgraph_base.schema import StoreTriples
from trustgraph_flow.store.governance import written


def texts(sessions: int) -> list[bytes]:
    """The batch texts the writer records for ``sessions`` agent sessions (two batches each),
    each with a decimal in a form the store keeps otherwise ("1.50" as "1.5"): the agent's
    own typed literals (UTC times) are put in normal form without the store in memory."""
    odd = '"1.50"^^<http://www.w3.org/2001/XMLSchema#decimal> <urn:graph:retrieval> .\n'
    return [
        (
            ox.serialize(
                [q for m in batch for q in StoreTriples.of(m).quads], format=ox.RdfFormat.N_QUADS
            )
            or b""
        )
        + f"<urn:bench:p{i}> <urn:bench:measure> {odd}".encode()
        for i in range(sessions)
        for batch in session(f"p{i}", 3)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="5 blocks of 1,000 passes (a few seconds)."
    )
    parser.add_argument("--blocks", type=int, default=10, help="Blocks of passes (default 10).")
    parser.add_argument("--passes", type=int, default=1000, help="Passes a block (default 1,000).")
    args = parser.parse_args()
    if args.quick:
        args.blocks, args.passes = 5, 1000
    record = texts(10)
    costs = []
    for b in range(args.blocks):
        start = time.process_time()
        for _ in range(args.passes):
            written._sorted_lines(record)
        costs.append((time.process_time() - start) / args.passes * 1000)
        print(
            f"passes {b * args.passes + 1}-{(b + 1) * args.passes}: {costs[-1]:.3f} ms CPU a pass"
        )
    change = costs[-1] / costs[0] - 1
    summary(
        "signing pass: the record's lines after many passes",
        f"{change:+.1%}",
        "flat (within the load's spread)",
        f"last block {costs[-1]:.3f} against first {costs[0]:.3f} ms a pass of 10 sessions",
    )


if __name__ == "__main__":
    main()
