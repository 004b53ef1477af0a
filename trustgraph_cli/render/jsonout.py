"""JSON output: views dumped with every field present (stable keys), RDF terms in wire form."""

from __future__ import annotations

import json
from typing import Any

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


def _clean_terms(value: Any) -> Any:
    if isinstance(value, list):
        return [_clean_terms(v) for v in value]
    if not isinstance(value, dict):
        return value
    is_term = value.get("t") in _TERM_KINDS and set(value) <= {"t", "i", "v", "dt", "ln", "d", "tr"}
    return {k: _clean_terms(v) for k, v in value.items() if not (is_term and v is None)}
