"""The one PromQL form ``/api/metrics/query`` answers: a metric's name, optionally with
equality matchers, ``name{label="value", …}`` (what the official ``tg-show-flow-state``
sends). Read character by character; anything else (functions, ranges, ``!=``, ``=~``) is
``ValueError`` naming what is not offered."""

from __future__ import annotations

NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_:"
NAME_CHARS = NAME_START + "0123456789"
LABEL_CHARS = NAME_CHARS.replace(":", "")
MAX_MATCHERS = 16


def is_metric_name(text: str) -> bool:
    return bool(text) and text[0] in NAME_START and all(c in NAME_CHARS for c in text)


def selector(text: str) -> tuple[str, dict[str, str]]:
    """``(name, {label: value})`` of ``name`` or ``name{label="value", …}``."""
    text = text.strip()
    brace = text.find("{")
    name = text if brace < 0 else text[:brace].strip()
    if not is_metric_name(name):
        raise ValueError('only a metric name, with label="value" matchers, is answered here')
    if brace < 0:
        return name, {}
    if not text.endswith("}"):
        raise ValueError("a selector's matchers end with '}'")
    inner, i, wanted = text[brace + 1 : -1], 0, {}
    while i < len(inner):
        while i < len(inner) and inner[i] in " ,":
            i += 1
        if i == len(inner):
            break
        start = i
        while i < len(inner) and inner[i] in LABEL_CHARS:
            i += 1
        label = inner[start:i]
        if not label or inner[i : i + 2] != '="':
            raise ValueError('only label="value" matchers are offered (no !=, =~ or !~)')
        i += 2
        value: list[str] = []
        while i < len(inner) and inner[i] != '"':
            if inner[i] == "\\" and i + 1 < len(inner):
                i += 1
            value.append(inner[i])
            i += 1
        if i == len(inner):
            raise ValueError("a matcher's value has no closing quote")
        wanted[label] = "".join(value)
        if len(wanted) > MAX_MATCHERS:
            raise ValueError(f"at most {MAX_MATCHERS} matchers")
        i += 1
    return name, wanted
