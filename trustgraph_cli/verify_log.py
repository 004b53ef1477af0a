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
  tg-verify-log --page-size 500

\b
Exit status: 0 when every chain verifies, 1 when anything was found (each named).
"""


@command(epilog=EPILOG)
@click.option(
    "--page-size",
    type=click.IntRange(1, 10_000),
    default=2000,
    show_default=True,
    help="Entries checked per request; progress is shown on stderr between pages.",
)
@format_option(
    "text", "json", help="A verdict and one line per problem, or the verification as JSON."
)
@gateway_options
def main(page_size: int, fmt: str, gw: Gateway) -> None:
    """Verify the collection's log: every entry's signature, each chain's order and
    completeness against its signed checkpoint, tombstones, and that no signed trace
    is gone without one (docs/audit.md).
    """
    result: Verification = run(gw, lambda: verify(gw, page_size))
    from trustgraph_cli.render.output import emit_json, scope_text
    from trustgraph_cli.render.text import erased_text, plural

    if fmt == "json":
        emit_json(result.model_dump(mode="json"))
    else:
        verdict = (
            "VERIFIED"
            if result.verified
            else f"NOT VERIFIED: {plural(len(result.problems), 'problem')}"
        )
        click.echo(
            f"{verdict}: {plural(result.entries, 'entry', 'entries')} in "
            f"{plural(result.chains, 'chain')}, "
            f"{erased_text(result.erased, result.erased_kinds)}; keys {', '.join(result.keys) or 'none'}"
        )
        if not result.entries and not result.problems:  # a wrong -C reads as all verified
            where = scope_text(gw.user, gw.collection)
            click.echo(f"  nothing to verify: the log of {where} is empty (nothing signed there)")
        for p in result.problems:
            click.echo(f"  ! {p.code}: {p.message}")
    if not result.verified:
        raise SystemExit(1)


async def verify(gw: Gateway, page_size: int) -> Verification:
    """The log checked a page at a time (progress on stderr when there is more than one),
    the pages' findings put together."""
    from trustgraph_base.schema.integrity import Verification
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.paging import pages as paged
    from trustgraph_cli.responses import must_exist

    pages: list[Verification] = []
    async with GatewayClient(gw) as client:
        request = {"operation": "verify-log", "limit": page_size}
        async for resp in paged(client, request, "", "the log"):
            if resp.verification is None:
                raise click.ClickException(
                    "the store sent no verification (is it older than this command?)"
                )
            pages.append(resp.verification)
            if resp.cursor:
                done = sum(p.entries for p in pages)
                click.echo(f"checked {done:,} of {resp.count or done:,} entries…", err=True)
        if not any(p.entries or p.problems for p in pages):  # nothing signed: is it there?
            await must_exist(client, gw)
    problems = [p for page in pages for p in page.problems]
    return Verification(
        verified=not problems,
        problems=problems,
        entries=sum(p.entries for p in pages),
        chains=pages[-1].chains,
        erased=sum(p.erased for p in pages),
        erased_kinds={
            kind: sum(p.erased_kinds.get(kind, 0) for p in pages)
            for kind in sorted({k for p in pages for k in p.erased_kinds})
        },
        keys=sorted({k for p in pages for k in p.keys}),
    )


async def verification(
    gw: Gateway, request: dict[str, str], missing: str | None, trace: str | None = None
) -> Verification:
    """One EXPLAIN verify-* round trip (``missing``: the line for an unknown id; ``trace``:
    the trace verified, looked for in the user's other collections when not found)."""
    from trustgraph_cli.responses import explain_once

    resp = await explain_once(gw, request, "a verification", missing, trace=trace)
    if resp.verification is None:
        raise click.ClickException(
            "the store sent no verification (is it older than this command?)"
        )
    return resp.verification


if __name__ == "__main__":
    main()
