"""tg-rotate-signing-key: replace the store's signing key, keeping old signatures verifiable."""

from __future__ import annotations

import click

from trustgraph_cli.options import command

EPILOG = """\b
Examples:
  tg-rotate-signing-key
  tg-rotate-signing-key --data-dir ./demo/data
  tg-rotate-signing-key --signing-key /secrets/key.pem --signing-public /secrets/public
"""


@command(epilog=EPILOG)
@click.option(
    "--data-dir",
    default=None,
    help="The store's data directory: the data/ folder in tg-start's --data-dir "
    "[default: tg-start's, <per-user data dir>/data].",
)
@click.option(
    "--signing-key", default=None, help="The key file [default: <data-dir>/signing/key.pem]."
)
@click.option(
    "--signing-public",
    default=None,
    help="The trusted public keys [default: <data-dir>/signing/public].",
)
def main(data_dir: str | None, signing_key: str | None, signing_public: str | None) -> None:
    """Write a new Ed25519 signing key for the store, keeping the old public key among the
    trusted ones so every signature made before still verifies (docs/audit.md). Restart the
    store to sign with the new key; replicas sharing the key file all need the restart.
    """
    from pathlib import Path

    from trustgraph_base.integrity.keys import KeyFileError, rotate
    from trustgraph_base.paths import default_processor_data_dir

    base = Path(data_dir or default_processor_data_dir()) / "signing"
    key = Path(signing_key) if signing_key else base / "key.pem"
    public = Path(signing_public) if signing_public else base / "public"
    if not key.exists():
        inner = Path(data_dir or ".") / "data"
        if data_dir and not signing_key and (inner / "signing" / "key.pem").exists():
            raise click.ClickException(  # tg-start's --data-dir: the store's is its data/
                f"no signing key at {key}; {data_dir} is tg-start's folder: pass --data-dir {inner}"
            )
        raise click.ClickException(
            f"no signing key at {key}: the store makes one at its first start."
        )
    try:
        old, new = rotate(key, public)
    except (KeyFileError, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(
        f"signing key {old} replaced by {new} (both trusted in {public}); restart the store to use it."
    )


if __name__ == "__main__":
    main()
