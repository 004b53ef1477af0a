"""JSON output: views dumped with every field present (stable keys), RDF terms in wire form."""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

import click

_TERM_KINDS = {"i", "l", "b", "t"}
_TERM_KEYS = {"t", "i", "v", "dt", "ln", "d", "tr"}
_SOURCED = ("edges", "chunks")  # lists whose items' sources are left out unless asked for


def view_json(model: Any) -> Any:
    """A pydantic view as JSON-ready data: all keys kept (None → null), terms without null parts."""
    return _clean_terms(model.model_dump(mode="json", by_alias=True))


def sources_not_requested(value: Any) -> Any:
    """Each edge's and chunk's ``sources`` left out: not looked up (``[]`` would read "none")."""
    if isinstance(value, list):
        return [sources_not_requested(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: sources_not_requested(v) for k, v in value.items()}
    for key in _SOURCED:
        for item in out.get(key) or []:
            if isinstance(item, dict):
                item.pop("sources", None)
    return out


def dumps(value: Any) -> str:
    """Indented, key order kept, non-ASCII left readable.

    Byte for byte ``json.dumps(value, indent=2, ensure_ascii=False)``, which with an indent
    runs the standard library's pure-Python encoder (a generator per container): this
    writes each container with one join, its strings escaped by the same C function.
    """
    return _text(value, "\n", terms=False, sources=True)


def view_text(model: Any, *, sources: bool, newline: str = "\n") -> str:
    """``dumps(view_json(model))`` (with ``sources_not_requested`` unless ``sources``) in one
    walk of the dumped model; ``newline`` is what starts each line after the first (a
    newline and the indent the document is printed at)."""
    return _text(model.model_dump(mode="json", by_alias=True), newline, terms=True, sources=sources)


_STEPS_MARK = "\x00steps\x00"  # stands for the steps while the rest is dumped
_STEP_INDENT = " " * 4  # a step of a top-level document's "steps" list, at indent 2


class StreamedView:
    """One trace view's JSON document printed in parts, byte for byte what ``dumps`` of
    the whole view prints: the fields before its steps, each step as it arrives, the fields
    after them. A view without steps is printed ``whole``."""

    def __init__(self, include_provenance: bool) -> None:
        self.include_provenance = include_provenance
        self._count = 0

    def head(self, view: Any) -> None:
        """What precedes the first step (the view's id, type, question, time, status…)."""
        click.echo(self._parts(view)[0], nl=False)

    def steps(self, steps: list[Any]) -> None:
        if not steps:
            return
        nl, sources = "\n" + _STEP_INDENT, self.include_provenance
        texts = [view_text(step, sources=sources, newline=nl) for step in steps]
        between = ",\n" + _STEP_INDENT
        click.echo((between if self._count else _STEP_INDENT) + between.join(texts), nl=False)
        self._count += len(steps)

    def tail(self, view: Any) -> None:
        """What follows the last step (the answer, the metrics…), and the closing brace."""
        click.echo(self._parts(view)[1])

    def whole(self, view: Any) -> None:
        click.echo(view_text(view, sources=self.include_provenance))

    def _parts(self, view: Any) -> tuple[str, str]:
        data = view.model_copy(update={"steps": []}).model_dump(mode="json", by_alias=True)
        data["steps"] = [_STEPS_MARK]
        text = _text(data, "\n", terms=True, sources=self.include_provenance)
        before, after = text.split(_STEP_INDENT + json.dumps(_STEPS_MARK, ensure_ascii=False))
        return before, after


def _text(value: Any, nl: str, *, terms: bool, sources: bool) -> str:
    """``value`` as ``json.dumps`` indents it at ``nl`` (a newline and the indent of the
    line it starts on); ``terms``: terms' None parts left out (``view_json``); not
    ``sources``: the sources of each edges/chunks item left out (``sources_not_requested``).

    A model's JSON dump has string keys only; a dict with other keys is written by json
    itself (as ``dumps`` is), its terms as they are.
    """
    if isinstance(value, (list, tuple)):
        return _list(value, nl, terms, sources, False)
    if isinstance(value, dict):
        return _dict(value, nl, terms, sources, False)
    return _scalar(value, nl)


def _scalar(value: Any, nl: str) -> str:
    # json's order of checks (a bool is an int, an IntEnum an int; str subclasses as str)
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    return _as_json(value, nl)  # refused as json refuses it


def _list(
    value: list[Any] | tuple[Any, ...], nl: str, terms: bool, sources: bool, unsourced: bool
) -> str:
    if not value:
        return "[]"
    inner = nl + "  "
    items = []
    for v in value:
        if type(v) is str:
            items.append(encode_basestring(v))
        elif isinstance(v, dict):
            items.append(_dict(v, inner, terms, sources, unsourced))
        elif isinstance(v, (list, tuple)):
            items.append(_list(v, inner, terms, sources, False))
        else:
            items.append(_scalar(v, inner))
    return "[" + inner + ("," + inner).join(items) + nl + "]"


def _dict(value: dict[Any, Any], nl: str, terms: bool, sources: bool, unsourced: bool) -> str:
    # unsourced: an item of an edges/chunks list, its sources left out
    drop_none = terms and value.get("t") in _TERM_KINDS and value.keys() <= _TERM_KEYS
    inner = nl + "  "
    parts = []
    for key, v in value.items():
        if type(key) is not str and not isinstance(key, str):
            return _as_json(value, nl)  # json writes such keys as strings (a dump has none)
        if unsourced and key == "sources":
            continue
        if type(v) is str:
            parts.append(encode_basestring(key) + ": " + encode_basestring(v))
        elif v is None:
            if not drop_none:
                parts.append(encode_basestring(key) + ": null")
        elif isinstance(v, dict):
            parts.append(encode_basestring(key) + ": " + _dict(v, inner, terms, sources, False))
        elif isinstance(v, (list, tuple)):
            listed = not sources and key in _SOURCED
            parts.append(encode_basestring(key) + ": " + _list(v, inner, terms, sources, listed))
        else:
            parts.append(encode_basestring(key) + ": " + _scalar(v, inner))
    if not parts:
        return "{}"
    return "{" + inner + ("," + inner).join(parts) + nl + "}"


def _as_json(value: Any, nl: str) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", nl)


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return float.__repr__(value)


def _clean_terms(value: Any) -> Any:
    if isinstance(value, list):
        return [_clean_terms(v) for v in value]
    if not isinstance(value, dict):
        return value
    is_term = value.get("t") in _TERM_KINDS and value.keys() <= _TERM_KEYS
    return {k: _clean_terms(v) for k, v in value.items() if not (is_term and v is None)}
