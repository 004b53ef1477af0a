"""tg-verify-log: check a collection's whole append-only log of signed traces."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from trustgraph_cli.options import Gateway, command, format_option, gateway_options, run

if TYPE_CHECKING:
    from trustgraph_base.schema.integrity import Verification

EPILOG = """\b
Examples:
  tg-verify-log
  tg-verify-log -U alice -C research --format json
\b
Exit status: 0 when every chain verifies, 1 when anything was found (each named).
"""


@command(epilog=EPILOG)
@format_option(
    "text", "json", help="A verdict and one line per problem, or the verification as JSON."
)
@gateway_options
def main(fmt: str, gw: Gateway) -> None:
    """Verify the collection's log: every entry's signature, each chain's order and
    completeness against its signed checkpoint, tombstones, and that no signed trace
    is gone without one (docs/audit.md).
    """
    result: Verification = run(gw, lambda: verify(gw))
    from trustgraph_cli.render.output import emit_json

    if fmt == "json":
        emit_json(result.model_dump(mode="json"))
    else:
        verdict = (
            "VERIFIED" if result.verified else f"NOT VERIFIED: {len(result.problems)} problem(s)"
        )
        click.echo(
            f"{verdict}: {result.entries} entries in {result.chains} chain(s), "
            f"{result.erased} erased; keys {', '.join(result.keys) or 'none'}"
        )
        for p in result.problems:
            click.echo(f"  ! {p.code}: {p.message}")
    if not result.verified:
        raise SystemExit(1)


async def verify(gw: Gateway) -> Verification:
    """One EXPLAIN verify-log round trip."""
    return await verification(gw, {"operation": "verify-log"}, None)


async def verification(gw: Gateway, request: dict[str, str], missing: str | None) -> Verification:
    """One EXPLAIN verify-* round trip (``missing``: the line for an unknown id)."""
    from trustgraph_cli.responses import explain_once

    resp = await explain_once(gw, request, "a verification", missing)
    if resp.verification is None:
        raise click.ClickException(
            "the store sent no verification (is it older than this command?)"
        )
    return resp.verification


if __name__ == "__main__":
    main()
