"""Durations as people write them: ``30d``, ``12h``, ``90m``, ``45s``, ``2w``, or combined (``1d12h``)."""

from __future__ import annotations

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_duration(text: str) -> float:
    """Seconds in ``text``; ``ValueError`` naming the problem for anything else."""
    value = text.strip().lower()
    if not value:
        raise ValueError("empty duration: write it like 30d, 12h, 90m or 45s")
    total, digits = 0, ""
    for ch in value:
        if ch.isdigit():
            digits += ch
        elif ch in UNITS and digits:
            total += int(digits) * UNITS[ch]
            digits = ""
        else:
            raise ValueError(
                f"bad duration {text!r}: write it like 30d, 12h, 90m or 45s (units s m h d w)"
            )
    if digits:
        raise ValueError(
            f"bad duration {text!r}: {digits} needs a unit (s m h d w), e.g. {digits}d"
        )
    return float(total)
