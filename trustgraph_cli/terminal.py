"""The one way out of every ``tg-*`` command: what it prints cannot drive the terminal.

``CliCommand`` (what ``options.command`` makes) runs the command with ``sys.stdout`` and
``sys.stderr`` behind ``Guarded``: each text written has its control characters shown
escaped (``render.text.safe``: C0 as ``\\x1b``, DEL, C1 and bidi marks as ``\\u009b``),
whatever printed it (a table, a tree, JSON, an exported document, an error message). Only
the colour codes the command's own ``Style`` paints (``ESC [ … m``) pass, and click drops
those too unless the output is a terminal. Bytes written to ``buffer`` are a file's exact
content and are not touched. A closed pipe (``| head``) ends the command quietly, as it
ends other unix tools.

Click-only (and ``re``), so that a command's ``--help`` stays fast.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

import click

from trustgraph_base.usage import Command

_SGR = re.compile(r"(\x1b\[[0-9;]*m)")  # a colour code; split keeps it as an odd item


def shown(text: str) -> str:
    """``text`` as it may reach the terminal: controls escaped, colour codes kept."""
    from trustgraph_cli.render.text import safe

    if text.isprintable():
        return text
    if "\x1b" not in text:
        return safe(text)
    parts = _SGR.split(text)
    return "".join(part if n % 2 else safe(part) for n, part in enumerate(parts))


class Guarded:
    """A text stream that writes through ``shown``; everything else is the stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._stream.write(shown(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` behind ``Guarded`` for the block (restored after)."""
    saved = sys.stdout, sys.stderr
    out, err = Guarded(saved[0]), Guarded(saved[1])
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        # Click wraps them again on a closed pipe, to stay quiet at exit: keep its wrappers.
        if sys.stdout is out:
            sys.stdout = saved[0]
        if sys.stderr is err:
            sys.stderr = saved[1]


class Interrupted(click.ClickException):
    """Ctrl-C: a one-line note of what was left on the server, exit 130 as a shell's."""

    exit_code = 130

    def show(self, file: object = None) -> None:
        click.echo(self.message, err=True)


class CliCommand(Command):
    """A ``tg-*`` command: one-line usage errors (``Command``) and guarded output."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        with guarded():
            return super().main(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        """Ctrl-C before the command's request went out (it was still starting: importing,
        reading the file) is 'Interrupted.', exit 130, as later; click's own 'Aborted!',
        exit 1, read as a failure."""
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted("Interrupted.") from None
