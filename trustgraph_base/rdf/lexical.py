"""Lexical forms of the XSD datatypes a literal is checked against."""

from __future__ import annotations

import re

XSD = "http://www.w3.org/2001/XMLSchema#"

# Matched whole (``fullmatch``: ``$`` also matches before a final newline) and ASCII only
# (``\d`` would take any script's digits, which XSD's lexical forms do not).
_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)", re.ASCII)
_DOUBLE = re.compile(r"([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?INF|NaN)", re.ASCII)
# XSD 1.1: month 01-12, day 01-31, hour 00-24, minutes/seconds 00-59, zone offset at most 14:00.
_DATETIME = re.compile(
    r"-?\d{4,}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-4]):[0-5]\d:[0-5]\d(\.\d+)?"
    r"(Z|[+-]((0\d|1[0-3]):[0-5]\d|14:00))?",
    re.ASCII,
)
_LEXICAL = {
    XSD + "integer": _INTEGER,
    XSD + "int": _INTEGER,
    XSD + "long": _INTEGER,
    XSD + "nonNegativeInteger": re.compile(r"\+?\d+", re.ASCII),
    XSD + "decimal": _DECIMAL,
    XSD + "double": _DOUBLE,
    XSD + "float": _DOUBLE,
    XSD + "boolean": re.compile(r"true|false|1|0"),
    XSD + "dateTime": _DATETIME,
}


def is_lexical(value: str, datatype: str) -> bool:
    """Whether ``check_lexical`` takes ``value`` (no reason made)."""
    pattern = _LEXICAL.get(datatype)
    return pattern is None or bool(pattern.fullmatch(value))


def check_lexical(value: str, datatype: str) -> None:
    """Raise ``ValueError`` when ``value`` is not a valid lexical form of a known XSD type."""
    pattern = _LEXICAL.get(datatype)
    if pattern is not None and not pattern.fullmatch(value):
        short = datatype.removeprefix(XSD)
        raise ValueError(f"{value!r} is not a valid xsd:{short}")
