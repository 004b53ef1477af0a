"""tg-verify-audit: check an audit bundle offline (no server, no broker)."""

from __future__ import annotations

import click

from trustgraph_cli.options import command, format_option

EPILOG = """\b
Examples:
  tg-verify-audit ./audit-2026-11
  tg-verify-audit ./audit-2026-11 --trusted-key deployment.pem --format json

\b
Exit status: 0 when the bundle verifies, 1 when anything was found (each named), 2 usage.
"""


@command(epilog=EPILOG)
@click.argument("bundle", metavar="BUNDLE", type=click.Path(file_okay=False))
@click.option(
    "--trusted-key",
    "trusted_keys",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="A public key (PEM) the signatures must be made with; repeat for rotated keys. "
    "Without it the bundle's own keys are used: compare their ids with the deployment's.",
)
@format_option("text", "json", help="A verdict and one line per problem, or the report as JSON.")
def main(bundle: str, trusted_keys: tuple[str, ...], fmt: str) -> None:
    """Verify an audit bundle made by tg-export-audit: the manifest's signature, every file
    against the manifest, the log's chains and checkpoints, and each trace's and
    document's quads against its signed digest
    (docs/audit.md says what a verified bundle proves and what it does not).
    """
    from pathlib import Path

    from trustgraph_base.integrity.audit import verify_bundle
    from trustgraph_base.integrity.keys import KeyFileError, key_id, read_public

    if not Path(bundle).is_dir():
        raise click.ClickException(f"no bundle folder {bundle!r}: make one with tg-export-audit.")
    trusted = None
    if trusted_keys:
        keys = []
        for name in trusted_keys:
            try:
                text = Path(name).read_bytes().decode()
                if "PRIVATE KEY-----" in text:  # cryptography's words for it puzzled
                    raise click.ClickException(
                        f"{name} is a private key: give the public one, from the deployment's "
                        "signing/public/ folder (docs/audit.md, 'The key')"
                    )
                keys.append(read_public(text, name))
            except UnicodeDecodeError:
                raise click.ClickException(
                    f"{name} is not a PEM public key (not UTF-8 text)"
                ) from None
            except OSError as exc:
                raise click.ClickException(
                    f"cannot read the key {name!r}: {exc.strerror}."
                ) from None
            except KeyFileError as exc:
                raise click.ClickException(str(exc)) from None
        trusted = {key_id(k): k for k in keys}
    report = verify_bundle(Path(bundle), trusted)
    if fmt == "json":
        from trustgraph_cli.render.output import emit_json

        emit_json(
            {
                "verified": report.verified,
                "traces": report.traces,
                "documents": report.documents,
                "sealed": report.sealed,
                "roots": report.roots,
                "entries": report.entries,
                "chains": report.chains,
                "erased": report.erased,
                "erased_kinds": report.erased_kinds,
                "keys": report.keys,
                "pinned": report.pinned,
                "problems": [
                    {"code": p.code, "message": p.message, "subject": p.subject}
                    for p in report.problems
                ],
            }
        )
    else:
        from trustgraph_cli.render.text import erased_text, plural

        verdict = (
            "VERIFIED"
            if report.verified
            else f"NOT VERIFIED: {plural(len(report.problems), 'problem')}"
        )
        whose = (
            "the given keys"
            if report.pinned
            else "the bundle's own keys " + ", ".join(report.keys)
            if report.keys
            else "no keys: the bundle holds none"
        )
        click.echo(
            f"{verdict}: {plural(report.traces, 'trace')} ({report.roots} counting sub-traces), "
            f"{plural(report.documents, 'document')}, "
            f"{plural(report.entries, 'log entry', 'log entries')} in "
            f"{plural(report.chains, 'chain')}, {erased_text(report.erased, report.erased_kinds)}; "
            f"signatures checked with {whose}"
        )
        if report.sealed:
            click.echo(f"  manifest sealed in {report.sealed}")
        for p in report.problems:
            click.echo(f"  ! {p.code}: {p.message}")
    if not report.verified:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
