"""Text as a terminal shows it: a formatted manual's bold and underline taken out, and the
words its formatter broke at a line's end whole again.

One reading for every place that counts a text document's characters: the decoder (its
chunks' offsets), ``tg-show-evidence``'s lines and columns, and the viewer (``asShown`` in
``static/terminal_text.js`` does the same, with the same character classes: no ``\\w`` nor
``\\S``, which Python and JavaScript read differently).
"""

from __future__ import annotations

import re

ESC, BS = "\x1b", "\b"
HYPHEN = "\u2010"  # groff's hyphen (HYPHEN, not '-') where it broke a word at a line's end
_LETTER = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"  # Latin letters
# Each match starts where a run starts (the look-behind), and no quantifier is nested in
# another: on a long run of letters or non-spaces the work stays linear, not cubic (a run of
# 2,000 'x' and '1‐' took 11 s with the quantifiers nested, 80,000 letters 32 s).
_BREAK = re.compile(
    f"(?<![^ \\t\\n\\r\\f\\v])([^ \\t\\n\\r\\f\\v]*){HYPHEN}\\n([ \\t]*)([{_LETTER}]+)"
)
_COMPOUND = re.compile(f"(?<![{_LETTER}])[{_LETTER}]+[{HYPHEN}-][{_LETTER}]+")
_ONE_LETTER = re.compile(f"[{_LETTER}]")


def as_shown(text: str) -> str:
    """``text`` without a terminal's controls (``unformatted``), its broken words joined
    (``unhyphenated``)."""
    return unhyphenated(unformatted(text))


def unhyphenated(text: str) -> str:
    """``text`` with the words a formatter broke at a line's end whole, on the line where they
    end: ``man bash`` writes "see SHELL BUILTIN COM‐" / "       MANDS below", read as two
    words ("COM‐ MAND" in an answer). A break is joined when it ends in groff's HYPHEN (never
    an ASCII '-', which is mostly a word's own: ``pre-existing``), the next line goes on
    with a letter (lowercase, or capitals after capitals) and the hyphenated word does not
    occur elsewhere in the text (``read‐only`` stays: a compound broken at its own hyphen). The whole run of
    characters before the hyphen moves down to the next line, after its indentation: lines
    stay lines (a line keeps its number), and no line is left empty."""
    if HYPHEN + "\n" not in text:
        return text
    compounds = {c.lower().replace(HYPHEN, "-") for c in _COMPOUND.findall(text)}

    def join(m: re.Match[str]) -> str:
        head, indent, tail = m.groups()
        letters = _trailing_letters(head)
        if not letters:
            return m.group(0)
        lower = tail[0] != tail[0].upper()  # the case tests JavaScript makes the same
        capitals = letters[-1] != letters[-1].lower() and tail == tail.upper()
        alone = not text[text.rfind("\n", 0, m.start()) + 1 : m.start()].strip(" \t")
        if alone or not (lower or capitals):
            return m.group(0)  # a word alone on its line stays: the line would be empty
        if f"{letters}-{tail}".lower() in compounds:
            return m.group(0)
        return f"\n{indent}{head}{tail}"

    return _BREAK.sub(join, text)


def _trailing_letters(run: str) -> str:
    """The letters ``run`` ends with (none: '')."""
    start = len(run)
    while start and _ONE_LETTER.fullmatch(run[start - 1]):
        start -= 1
    return run[start:]


def unformatted(text: str) -> str:
    """``text`` without a terminal's controls: a formatted manual (``man``, ``groff -Tutf8``,
    ``/usr/share/doc``'s ``*.txt``) marks bold and underline with escape sequences (ECMA-48:
    ``ESC [ 4 m``) or by overstriking (``X BS X``, ``_ BS X``). Kept, a sequence's visible
    part (``[4m``) would be read as words and joined to them. Only those are taken out, so a
    line stays a line; characters and columns count in the text without them."""
    if ESC not in text and BS not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == ESC:
            i = _after_escape(text, i + 1)
            continue
        if ch == BS:
            struck = text[i + 1] if i + 1 < n else ""
            if out and out[-1] != "\n" and struck not in ("", "\n", ESC, BS):
                if struck != "_":  # "X BS _" underlines X; otherwise the last character shows
                    out[-1] = struck
                i += 2
            else:
                i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _after_escape(text: str, i: int) -> int:
    """Where the text goes on after an escape sequence whose ESC ends at ``i`` (ECMA-48 5.3,
    5.4): a control sequence (``[``, parameter and intermediate bytes, a final byte) or an
    escape sequence (intermediate bytes, a final byte: ``ESC ( B``); never past a line's end."""
    n = len(text)
    if i < n and text[i] == "[":
        i += 1
        while i < n and "\x20" <= text[i] <= "\x3f":
            i += 1
        return i + 1 if i < n and "\x40" <= text[i] <= "\x7e" else i
    while i < n and "\x20" <= text[i] <= "\x2f":
        i += 1
    return i + 1 if i < n and "\x30" <= text[i] <= "\x7e" else i
