"""JSON output: views dumped with every field present (stable keys), RDF terms in wire form."""

from __future__ import annotations

import json
from typing import Any

import click

_TERM_KINDS = {"i", "l", "b", "t"}


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
    for key in ("edges", "chunks"):
        for item in out.get(key) or []:
            if isinstance(item, dict):
                item.pop("sources", None)
    return out


def dumps(value: Any) -> str:
    """Indented, key order kept, non-ASCII left readable."""
    return json.dumps(value, indent=2, ensure_ascii=False)


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
        texts = [dumps(self._data(step)).replace("\n", "\n" + _STEP_INDENT) for step in steps]
        between = ",\n" + _STEP_INDENT
        click.echo((between if self._count else _STEP_INDENT) + between.join(texts), nl=False)
        self._count += len(steps)

    def tail(self, view: Any) -> None:
        """What follows the last step (the answer, the metrics…), and the closing brace."""
        click.echo(self._parts(view)[1])

    def whole(self, view: Any) -> None:
        click.echo(dumps(self._data(view)))

    def _data(self, model: Any) -> Any:
        data = view_json(model)
        return data if self.include_provenance else sources_not_requested(data)

    def _parts(self, view: Any) -> tuple[str, str]:
        data = self._data(view.model_copy(update={"steps": []}))
        data["steps"] = [_STEPS_MARK]
        text = dumps(data)
        before, after = text.split(_STEP_INDENT + json.dumps(_STEPS_MARK, ensure_ascii=False))
        return before, after


def _clean_terms(value: Any) -> Any:
    if isinstance(value, list):
        return [_clean_terms(v) for v in value]
    if not isinstance(value, dict):
        return value
    is_term = value.get("t") in _TERM_KINDS and set(value) <= {"t", "i", "v", "dt", "ln", "d", "tr"}
    return {k: _clean_terms(v) for k, v in value.items() if not (is_term and v is None)}
