"""The tg-* commands. They talk only to the gateway.

A Ctrl-C while a command is still importing (before click runs it, ~0.2 s at load 16) is
the one line every command says, not a traceback of the import it cut: this package is the
first thing a ``tg-*`` entry point imports.
"""

import sys
from types import TracebackType


def _interrupted(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        print("Interrupted.", file=sys.stderr)  # the interpreter still exits as by SIGINT
    else:
        _previous(kind, value, tb)


_previous = sys.excepthook
sys.excepthook = _interrupted
