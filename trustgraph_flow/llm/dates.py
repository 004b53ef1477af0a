"""Dates as a text writes them, for the offline engine: the months' names, and a date read
whole from a sentence's tokens ("October 23, 2022", "3 May 1871", "May 1871", "2017-12-31"),
so a fact's object is the date, not its first word ("was released on October 23, 2022" →
``October 23, 2022``, a literal; it was ``October``, or ``3`` for "3 May 1871")."""

from __future__ import annotations

MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)


def _year(token: str) -> bool:
    return len(token) == 4 and token.isdigit()


def _day(token: str) -> bool:
    return token.isdigit() and 1 <= len(token) <= 2 and 1 <= int(token) <= 31


def date_at(tokens: list[str], i: int) -> tuple[str, int] | None:
    """The date starting at ``tokens[i]`` and the index after it, or None. A month's name
    alone is no date ("May" is also a modal): it needs a day or a year beside it."""
    t = tokens[i : i + 5] + [""] * 5
    if t[0].lower() in MONTHS and t[0][:1].isupper():
        if _day(t[1]) and t[2] == "," and _year(t[3]):
            return f"{t[0]} {t[1]}, {t[3]}", i + 4  # October 23, 2022
        if _day(t[1]) and _year(t[2]):
            return f"{t[0]} {t[1]} {t[2]}", i + 3  # October 23 2022
        if _year(t[1]):
            return f"{t[0]} {t[1]}", i + 2  # May 1871
        return None
    if _day(t[0]) and t[1].lower() in MONTHS and t[1][:1].isupper() and _year(t[2]):
        return f"{t[0]} {t[1]} {t[2]}", i + 3  # 3 May 1871
    iso = _year(t[0]) and t[1] == "-" and t[3] == "-" and len(t[2]) == 2 and len(t[4]) == 2
    if iso and t[2].isdigit() and _day(t[4]) and 1 <= int(t[2]) <= 12:
        return f"{t[0]}-{t[2]}-{t[4]}", i + 5  # 2017-12-31
    return None
