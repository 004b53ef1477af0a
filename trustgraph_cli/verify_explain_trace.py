"""tg-verify-explain-trace: check a trace against its signature and the append-only log."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from trustgraph_cli.options import (
    Gateway,
    command,
    format_option,
    gateway_options,
    no_viewer_address,
    run,
)

if TYPE_CHECKING:
    from trustgraph_base.schema.integrity import Verification

EPILOG = """\b
Examples:
  trace=$(tg-list-explain-traces -l 1 --format csv | sed -n 2p | cut -d, -f1)   # the newest trace
  tg-verify-explain-trace "$trace"
  tg-verify-explain-trace "$trace" --format json

\b
Exit status: 0 verified (or erased, with a valid tombstone), 1 anything else: changed,
unsigned, still in progress (not signed yet), or not found.
"""


@command(epilog=EPILOG)
@click.argument("trace_id", metavar="ID", callback=no_viewer_address)
@format_option("text", "json", help="One line per trace and problem, or the verification as JSON.")
@gateway_options
def main(trace_id: str, fmt: str, gw: Gateway) -> None:
    """Verify an explain trace: its signature, its digest recomputed from the stored
    quads (RDFC-1.0, SHA-256) and its place in the collection's log, for the trace and
    each sub-trace. What changed since it was signed is named (docs/audit.md).

    ID may also be a document URI (urn:trustgraph:doc:…): its extraction provenance,
    signed when the document's extraction completed.
    """
    result: Verification = run(gw, lambda: verify(gw, trace_id))
    from trustgraph_cli.render.output import emit_json

    if fmt == "json":
        emit_json(result.model_dump(mode="json"))
    else:
        for line in lines(result):
            click.echo(line)
    if not result.verified:
        raise SystemExit(1)


def lines(result: Verification) -> list[str]:
    """The verification as text: a verdict, a line per trace root, a line per problem."""
    from trustgraph_cli.render.text import plural

    if any(c.status == "in-progress" for c in result.traces) and not result.problems:
        head = "NOT SIGNED YET: the trace is still in progress (it is signed when it ends)"
    elif result.verified:
        erased = [c for c in result.traces if c.status == "erased"]
        head = "ERASED (the log verifies): " + erased[0].erased if erased else "VERIFIED"
    else:
        head = f"NOT VERIFIED: {plural(len(result.problems), 'problem')}"
    out = [head]
    for c in result.traces:
        where = f"  log {c.entry}, key {c.key}, signed {c.signed_at}" if c.entry else ""
        out.append(
            f"  {c.status:<11} {c.id}"
            + (f"  ({c.count} quads, sha256 {c.digest[:16]}…){where}" if c.digest else "")
        )
    out += [f"  ! {p.code}: {p.message}" for p in result.problems]
    return out


async def verify(gw: Gateway, trace_id: str) -> Verification:
    """One EXPLAIN verify-trace round trip."""
    from trustgraph_cli.responses import no_trace
    from trustgraph_cli.verify_log import verification

    request = {"operation": "verify-trace", "id": trace_id}
    return await verification(gw, request, no_trace(trace_id, gw), trace_id)


if __name__ == "__main__":
    main()
