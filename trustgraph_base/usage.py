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


def one_line(exc: click.UsageError) -> UsageLine:
    """The usage error's message on one line, with where to look for help."""
    hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
    return UsageLine(" ".join(exc.format_message().split()) + hint)


def command(**kwargs: Any) -> Callable[[Callable[..., Any]], click.Command]:
    """``@click.command`` with the shared ``Command`` class."""
    return click.command(cls=Command, **kwargs)


def group(**kwargs: Any) -> Callable[[Callable[..., Any]], click.Group]:
    """``@click.group`` with the shared ``Group`` class."""
    return click.group(cls=Group, **kwargs)
