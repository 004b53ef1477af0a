"""One-line usage errors (exit 2) for every click command: clients, tg-start and tg-stop.

Click-only, so that a command's ``--help`` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click


class UsageLine(click.ClickException):
    """A usage error shown as one line (``Error: … (see 'tg-x --help')``), exit 2."""

    exit_code = 2


class Command(click.Command):
    """A click command whose usage errors are one line and exit 2."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            raise one_line(exc) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            raise one_line(exc) from None


class Group(Command, click.Group):
    """A click group whose usage errors (its own and its commands') are one line and exit 2."""

    command_class = Command


# Flags users type for one of another name: an unknown flag here is answered with the
# first of its meanings the command has (click guesses by spelling: '--before' got
# "Did you mean '--format'?" where '--older-than' was meant). One table for every command.
MEANT: dict[str, tuple[str, ...]] = {
    "--before": ("--older-than", "--until"),
    "--older": ("--older-than", "--until"),
    "--until": ("--older-than",),
    "--to": ("--until",),
    "--end": ("--until",),
    "--after": ("--since",),
    "--from": ("--since",),
    "--start": ("--since",),
    "--newer-than": ("--since",),
    "--older-than": ("--until",),
    "--json": ("--format",),
    "--output-format": ("--format",),
    "--type": ("--mime-type",),
    "--mime": ("--mime-type",),
    "--url": ("--api-url",),
    "--gateway": ("--api-url",),
    "--api-key": ("--token",),
    "--key": ("--token",),
    "--max": ("--limit",),
    "--count": ("--limit",),
    "--out": ("--output",),
    "--document": ("--id",),
    "--doc": ("--id",),
}


def meant(exc: click.NoSuchOption, command: click.Command) -> str | None:
    """The flag of ``command`` an unknown one stands for (MEANT), if any."""
    flags = {opt for param in command.params for opt in param.opts}
    said = exc.option_name.split("=", 1)[0]
    return next((flag for flag in MEANT.get(said, ()) if flag in flags), None)


def one_line(exc: click.UsageError) -> UsageLine:
    """The usage error's message on one line, with where to look for help (an unknown flag
    with the one it stands for, when MEANT knows it, rather than click's nearest spelling)."""
    hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
    text = exc.format_message()
    if isinstance(exc, click.NoSuchOption) and exc.ctx is not None:
        if flag := meant(exc, exc.ctx.command):
            text = f"{exc.message} Did you mean {flag!r}?"
    return UsageLine(" ".join(text.split()) + hint)


def command(**kwargs: Any) -> Callable[[Callable[..., Any]], click.Command]:
    """``@click.command`` with the shared ``Command`` class."""
    return click.command(cls=Command, **kwargs)


def group(**kwargs: Any) -> Callable[[Callable[..., Any]], click.Group]:
    """``@click.group`` with the shared ``Group`` class."""
    return click.group(cls=Group, **kwargs)
