"""SPARQL 1.1 Query Results CSV, written the same way by the gateway and ``tg-sparql``."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

T = TypeVar("T")


def results_csv(
    variables: list[str], rows: Iterable[Mapping[str, T]], value: Callable[[T], str]
) -> str:
    """A header of the variables, then a row per solution (``value`` of each bound term, an
    unbound one empty), CRLF line ends."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(variables)
    for row in rows:
        writer.writerow([value(row[v]) if v in row else "" for v in variables])
    return out.getvalue()
