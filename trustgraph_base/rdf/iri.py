"""IRIs as the wire takes them: the check, its one-regex form for pydantic-core, and its reasons."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import InitErrorDetails

# Characters RFC 3987 forbids in an IRI, plus anything that is not printable.
_BAD_IRI = re.compile(r'[\x00-\x20<>"{}|^`\\\x7f]')
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")

FROZEN = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

# ``check_iri`` as one regex, checked in Rust by pydantic-core (a Python validator per IRI
# dominated decoding). A mismatch is reported with ``check_iri``'s reason: see ``iri_fault``.
IRI_PATTERN = r'^[A-Za-z][A-Za-z0-9+.\-]*:[^\x00-\x20<>"{}|\^`\\\x7f]*$'


def check_iri(value: str) -> str:
    """Return ``value`` if it is an absolute IRI, else raise ``ValueError`` naming the fault."""
    if not _SCHEME.match(value):
        raise ValueError(f"not an absolute IRI (no scheme): {value!r}")
    bad = _BAD_IRI.search(value)
    if bad:
        raise ValueError(f"IRI contains a forbidden character {bad.group()!r}: {value!r}")
    return value


def is_iri(value: str) -> bool:
    """Whether ``check_iri`` takes ``value`` (no reason made)."""
    return bool(_SCHEME.match(value)) and not _BAD_IRI.search(value)


def iri_fault(error: Mapping[str, Any]) -> str | None:
    """``check_iri``'s reason when a pydantic error is an IRI that failed ``IRI_PATTERN``."""
    ctx = error.get("ctx") or {}
    if error.get("type") != "string_pattern_mismatch" or ctx.get("pattern") != IRI_PATTERN:
        return None
    try:
        check_iri(str(error.get("input")))
    except ValueError as exc:
        return str(exc)
    return None


def with_iri_faults(exc: ValidationError) -> ValidationError:
    """The same errors, IRI pattern mismatches restated as the ``value_error`` ``check_iri`` raises."""
    details = exc.errors(include_url=False)
    if all(iri_fault(e) is None for e in details):
        return exc
    errors: list[InitErrorDetails] = []
    for error in details:
        fault = iri_fault(error)
        if fault is not None:
            errors.append(
                {
                    "type": "value_error",
                    "loc": error["loc"],
                    "input": error["input"],
                    "ctx": {"error": ValueError(fault)},
                }
            )
        else:
            kept: InitErrorDetails = {
                "type": error["type"],
                "loc": error["loc"],
                "input": error["input"],
            }
            if "ctx" in error:
                kept["ctx"] = error["ctx"]
            errors.append(kept)
    return ValidationError.from_exception_data(exc.title, errors)


class IriChecked(BaseModel):
    """A model built from Python refuses a bad IRI with ``check_iri``'s reason, as from the wire."""

    model_config = FROZEN

    if not TYPE_CHECKING:  # type checkers keep each model's own signature (its fields)

        def __init__(self, /, **data: Any) -> None:
            """Build from Python (``with_iri_faults`` restates a failed ``IRI_PATTERN``)."""
            try:
                super().__init__(**data)
            except ValidationError as exc:
                raise with_iri_faults(exc) from None

        # Marked as pydantic's own __init__: otherwise pydantic-core would call this method
        # for every model it validates (from JSON too), costing as much as the Python check.
        __init__.__pydantic_base_init__ = True
