"""Plain column tables that fit the terminal: one flexible column is cut to the space left."""

from __future__ import annotations

from collections.abc import Sequence

from trustgraph_cli.render.style import Style
from trustgraph_cli.render.text import fit, one_line

GAP = "  "
MIN_FLEX = 12


def render_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], style: Style, *, flex: int | None = None
) -> list[str]:
    """Header, rule and rows; column ``flex`` (e.g. a question) shrinks so lines fit ``style.width``
    when ``style.fit_tables`` (a terminal); piped, every cell is kept whole."""
    cells = [[one_line(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    if flex is not None and style.fit_tables:
        others = sum(w for i, w in enumerate(widths) if i != flex) + len(GAP) * (len(headers) - 1)
        room = max(MIN_FLEX, len(headers[flex]), style.width - others)
        widths[flex] = min(widths[flex], room)
        for row in cells:
            row[flex] = fit(row[flex], widths[flex], style.ellipsis)
    full = sum(widths) + len(GAP) * (len(widths) - 1)
    rule = "-" * (min(style.width, full) if style.fit_tables else full)
    lines = [style.paint(_line(headers, widths), "bold"), style.paint(rule, "dim")]
    lines += [_line(row, widths) for row in cells]
    return lines


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    padded = [c.ljust(w) for c, w in zip(cells, widths, strict=True)]
    return GAP.join(padded).rstrip()
