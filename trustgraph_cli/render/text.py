"""Fitting text to the screen: truncation with a visible marker, wrapping, RDF terms as text."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

MIN_TEXT_WIDTH = 20
MAX_HANG = 20  # continuation lines hang under the value, up to this far in
_GLUE = "\ue000"  # stands for a space that must not break (inside a truncation marker)
_MARKER = re.compile(r"\[truncated, \d+ chars\]")


# Bidirectional overrides and isolates: they reorder what the terminal shows.
_BIDI = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
# C0 controls but newline and tab as ``\x1b``; DEL, C1 controls and the bidi marks as
# ``\u009b``, the escape JSON and Turtle strings read too (json.dumps and pyoxigraph escape
# C0 themselves but leave these raw), so an escaped JSON or RDF document stays valid.
_ESCAPES = {c: f"\\x{c:02x}" for c in range(0x20) if chr(c) not in "\n\t"}
_ESCAPES |= {c: f"\\u{c:04x}" for c in (0x7F, *range(0x80, 0xA0), *sorted(_BIDI))}


def safe(text: str) -> str:
    """``text`` with terminal control characters shown escaped, so stored text cannot drive the terminal.

    C0 controls (ESC, BEL, a CR not ending a line, backspace …) but newline and tab become
    ``\\x1b``; DEL, C1 controls (U+0080–U+009F) and bidirectional overrides ``\\u009b`` /
    ``\\u202e``. Every line a command prints goes through this (``trustgraph_cli.terminal``).
    """
    if text.isprintable():  # the common case: nothing to escape (newline and tab are not printable)
        return text
    if "\r\n" in text:  # a CSV line end (tg-sparql): a CR before a newline hides nothing
        return "\r\n".join(part.translate(_ESCAPES) for part in text.split("\r\n"))
    return text.translate(_ESCAPES)


def truncate(text: str, max_chars: int, ellipsis: str = "…") -> str:
    """``text`` cut to ``max_chars`` with ``… [truncated, N chars]`` (N the full length); 0 keeps all."""
    if max_chars <= 0 or len(text) <= max_chars:
        return text
    return f"{text[:max_chars].rstrip()}{ellipsis} [truncated, {len(text)} chars]"


def one_line(text: str) -> str:
    """Runs of whitespace (newlines included) collapsed to one space, controls escaped."""
    return " ".join(safe(text).split())


def preview(text: str, max_chars: int, ellipsis: str = "...") -> str:
    """A one-line quoted preview in the document-tree style: ``"The quick..." [truncated]``."""
    flat = one_line(text)
    if max_chars > 0 and len(flat) > max_chars:
        return f'"{flat[:max_chars].rstrip()}{ellipsis}" [truncated]'
    return f'"{flat}"'


def fit(text: str, width: int, ellipsis: str = "…") -> str:
    """One line of at most ``width`` characters (cut with an ellipsis)."""
    flat = one_line(text)
    if len(flat) <= width:
        return flat
    return flat[: max(0, width - len(ellipsis))].rstrip() + ellipsis


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 trace``, ``3 traces``, ``0 entries`` (``many`` for a plural that is not ``word + s``)."""
    return f"{n} {word}" if n == 1 else f"{n} {many or word + 's'}"


def erased_text(erased: int, kinds: Mapping[str, int]) -> str:
    """``0 erased``, or ``2 erased entries (1 document)``: a document or trace has a log entry
    for each time it was signed, each erased with it, so entries alone overcount
    (tg-verify-log and tg-verify-audit)."""
    if not erased:
        return "0 erased"
    what = ", ".join(plural(n, kind) for kind, n in sorted(kinds.items()))
    entries = plural(erased, "erased entry", "erased entries")
    return f"{entries} ({what})" if what else entries


def short_time(value: str) -> str:
    """``2026-01-02T03:04:05.123Z`` → ``2026-01-02 03:04:05Z`` (JSON output keeps the full value)."""
    if len(value) >= 19 and value[10] == "T":
        zone = "Z" if value.endswith("Z") else ""
        return f"{value[:10]} {value[11:19]}{zone}"
    return value


def fits_one_line(label: str, value: str, width: int) -> bool:
    """Whether ``wrap_field`` gives ``Label: value`` as one line, as it is (nothing to escape,
    no break, no run of spaces to fold), so a caller may write it without the call."""
    head = len(label) + 2
    return (
        head + len(value) <= max(width, min(head, MAX_HANG) + MIN_TEXT_WIDTH)
        and value.isprintable()
        and "  " not in value
        and label.isprintable()
    )


def wrap_field(label: str, value: str, width: int) -> list[str]:
    """``Label: value`` wrapped to ``width``, continuation lines hanging under the value."""
    head = f"{safe(label)}: " if label else ""
    hang = " " * min(len(head), MAX_HANG)
    width = max(width, len(hang) + MIN_TEXT_WIDTH)
    if len(head) + len(value) <= width and value.isprintable() and "  " not in value:
        # The common case: one line as it is (printable: no line break, nothing to escape).
        return [(head + value).rstrip()]
    lines: list[str] = []
    for n, para in enumerate(safe(value).splitlines() or [""]):
        first = head if n == 0 else hang
        if len(first) + len(para) <= width and "  " not in para:
            lines.append((first + para).rstrip())  # the common case: it fits as it is
        elif "[truncated, " in para:
            glued = _MARKER.sub(lambda m: m.group().replace(" ", _GLUE), para)
            lines.extend(w.replace(_GLUE, " ") for w in _greedy(glued.split(), first, hang, width))
        else:
            lines.extend(_greedy(para.split(), first, hang, width))
    return lines


def _greedy(words: list[str], first: str, hang: str, width: int) -> list[str]:
    """Fill lines word by word; a word longer than a whole line fills the rest of the current one."""
    if words and max(map(len, words)) <= width - max(len(first), len(hang)):
        return _fill(" ".join(words), first, hang, width)
    lines: list[str] = []
    line, indent = first, len(first)
    for word in words:
        gap = 0 if len(line) == indent else 1
        if len(line) + gap + len(word) <= width:
            line += " " * gap + word
            continue
        if len(line) > indent and len(word) <= width - len(hang):  # fits on a fresh line
            lines.append(line)
            line, indent = hang + word, len(hang)
            continue
        while word:  # too long for any line: cut it across lines
            gap = 0 if len(line) == indent else 1
            room = width - len(line) - gap
            if room <= 0:
                lines.append(line)
                line, indent = hang, len(hang)
                continue
            line += " " * gap + word[:room]
            word = word[room:]
            if word:
                lines.append(line)
                line, indent = hang, len(hang)
    lines.append(line.rstrip())
    return lines


def _fill(text: str, first: str, hang: str, width: int) -> list[str]:
    """``_greedy`` when every word fits on a line of its own (the common case): each line
    breaks at the last space that fits, found with one ``rfind`` instead of word by word
    (a 20,000-step trace wraps 40,000 thoughts and observations)."""
    lines: list[str] = []
    line, pos, end = first, 0, len(text)
    while True:
        room = width - len(line)
        if end - pos <= room:
            lines.append((line + text[pos:]).rstrip())
            return lines
        cut = text.rfind(" ", pos, pos + room + 1)  # found: the line's first word fits
        lines.append(line + text[pos:cut])
        line, pos = hang, cut + 1


def term_text(term: Any) -> str:
    """An RDF term (pydantic model or its JSON dict) as short text: IRI, "literal", _:blank, << s p o >>."""
    data = term if isinstance(term, dict) else term.model_dump()
    kind = data.get("t")
    if kind == "i":
        return str(data["i"])
    if kind == "l":
        return f'"{data["v"]}"'
    if kind == "b":
        return f"_:{data['d']}"
    if kind == "t":
        tr = data["tr"]
        return f"<< {term_text(tr['s'])} {term_text(tr['p'])} {term_text(tr['o'])} >>"
    return str(data)


def label_or_term(label: str | None, term: Any) -> str:
    """A label where the store found one; else, for an extracted entity or relation (whose
    label may have gone with its document), the label its URI was minted from; else the term
    itself (a literal keeps its quotes)."""
    if label:
        return label
    data = term if isinstance(term, dict) else term.model_dump()
    if data.get("t") == "i":
        from trustgraph_base.provenance.uris import minted_label

        minted = minted_label(str(data["i"]))
        if minted:
            return minted
    return term_text(term)
