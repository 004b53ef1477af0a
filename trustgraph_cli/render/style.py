"""How output looks where it goes: colour and width on a terminal, plain text when piped."""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from typing import TextIO

_CODES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}
_UNICODE_PROBE = "├└│→…"
DEFAULT_WIDTH = 100
MIN_WIDTH = 40


@dataclass(frozen=True)
class Style:
    """Colour on or off, Unicode glyphs or ASCII, the width to wrap to, and whether tables
    are cut to fit it (on a terminal; piped tables keep every character, so grep finds it)."""

    color: bool = False
    unicode: bool = True
    width: int = DEFAULT_WIDTH
    fit_tables: bool = True

    @classmethod
    def detect(cls, stream: TextIO | None = None) -> Style:
        """Colour only on a terminal (``NO_COLOR`` off, ``FORCE_COLOR`` on); glyphs if encodable."""
        out = stream if stream is not None else sys.stdout
        tty = _isatty(out)
        color = (tty or bool(os.environ.get("FORCE_COLOR"))) and not os.environ.get("NO_COLOR")
        width = shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
        return cls(
            color=color, unicode=_can_encode(out), width=max(MIN_WIDTH, width), fit_tables=tty
        )

    def paint(self, text: str, *styles: str) -> str:
        """``text`` wrapped in ANSI codes for ``styles`` when colour is on."""
        if not self.color or not styles or not text:
            return text
        codes = ";".join(_CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    @property
    def tee(self) -> str:
        return "├── " if self.unicode else "|-- "

    @property
    def last(self) -> str:
        return "└── " if self.unicode else "`-- "

    @property
    def pipe(self) -> str:
        return "│   " if self.unicode else "|   "

    @property
    def arrow(self) -> str:
        return " → " if self.unicode else " -> "

    @property
    def ellipsis(self) -> str:
        return "…" if self.unicode else "..."


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _can_encode(stream: TextIO) -> bool:
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        _UNICODE_PROBE.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True
