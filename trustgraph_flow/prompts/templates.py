"""Prompt templates: text with ``{{name}}`` placeholders, filled from named text values.

A template names exactly the variables its prompt has: one it does not know, or one it
leaves out, is refused when it is put (``check``), so a filled template never has a hole.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def placeholders(template: str) -> set[str]:
    """The variable names ``template`` uses."""
    return {m.group(1) for m in _PLACEHOLDER.finditer(template)}


def check(template: str, variables: Iterable[str]) -> str | None:
    """Why ``template`` cannot be the prompt whose variables are ``variables`` (None: it can)."""
    known, used = set(variables), placeholders(template)
    unknown, missing = sorted(used - known), sorted(known - used)
    if unknown:
        names = ", ".join("{{" + n + "}}" for n in unknown)
        return f"unknown variable(s) {names} (this prompt has: {_listed(known)})"
    if missing:
        names = ", ".join("{{" + n + "}}" for n in missing)
        return f"missing variable(s) {names}: the prompt must use each of {_listed(known)}"
    return None


def _listed(names: Iterable[str]) -> str:
    return ", ".join("{{" + n + "}}" for n in sorted(names)) or "(none)"


def render(template: str, values: Mapping[str, str]) -> str:
    """``template`` with each placeholder replaced by its value (in one pass: a value that
    itself contains ``{{x}}`` is left as it is)."""
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def digest(system: str, template: str) -> str:
    """The version of a prompt: ``sha256:`` of its system text and template."""
    h = hashlib.sha256()
    for part in (system, template):
        data = part.encode()
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return "sha256:" + h.hexdigest()
