"""Reading a JSON list reply that was cut off before its end (by the reply's ``max_tokens``).

A reply cut off mid-list is not JSON, but the items before the cut are whole: ``unclosed``
tells a cut-off reply (it ends inside a string, list or object), and ``complete_items``
returns the items of its list that closed before the cut.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Where the list starts: a bare list, or the list under ``key`` of an object (code fence allowed).
_LIST_START = r'^\s*(?:```[a-zA-Z]*\s*)?(?:\{{\s*"{key}"\s*:\s*)?\['
_DECODER = json.JSONDecoder(strict=False)  # a bare newline in a string, as parse_json allows


def unclosed(text: str) -> bool:
    """Whether ``text`` ends inside a JSON string, list or object (it was cut off)."""
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return in_string or depth > 0


def complete_items(text: str, key: str) -> list[Any]:
    """The items of the reply's list (bare, or ``{key: [...]}``) that are whole JSON values,
    in order, up to the first one that is not (where the reply was cut off)."""
    start = re.match(_LIST_START.format(key=re.escape(key)), text)
    if start is None:
        return []
    items: list[Any] = []
    pos = start.end()
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            return items
        try:
            item, pos = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError:
            return items
        items.append(item)
