"""The one line format each benchmark prints for the suite's closing table."""

from __future__ import annotations

PREFIX = "SUMMARY|"


def summary(figure: str, measured: str, goal: str, note: str = "") -> None:
    """Print one row of the closing table: what was measured, its value, its goal, a note."""
    print(f"{PREFIX}{figure}|{measured}|{goal}|{note}", flush=True)
