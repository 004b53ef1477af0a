"""Structured output levels: the ``response_format`` each level sends, and stepping down.

A request with a ``response_schema`` asks the server to enforce it, at one of three levels:
``json_schema`` (OpenAI, vLLM, Ollama, llama.cpp's ``llama-server``), ``json_object`` with
a ``schema`` (llama-cpp-python's server), or ``none`` (the prompt alone). A server that
refuses the format makes the level drop *below the level that was refused* — never below
the current one again: many requests sent at once at ``json_schema`` and refused together
step down once, to ``json_object``, not once each.
"""

from __future__ import annotations

import logging
from typing import Any

from trustgraph_base.schema import TextCompletionRequest

log = logging.getLogger(__name__)

LEVELS = ("json_schema", "json_object", "none")
# Words in an error message that say the server refused the requested output format.
_FORMAT_WORDS = ("response_format", "json_schema", "schema", "grammar")


class FormatRefused(Exception):
    """The server refused the ``response_format`` of the request sent at ``level``."""

    def __init__(self, message: str, level: str) -> None:
        super().__init__(message)
        self.level = level


def refuses_format(status: int, message: str) -> bool:
    """Whether an error answer says the server does not take the requested output format.

    Some servers answer a request they cannot validate with 500 rather than 400/422
    (llama-cpp-python's server does), so the status alone does not tell.
    """
    text = message.lower()
    return status in (400, 422, 500) and any(word in text for word in _FORMAT_WORDS)


def _schema_name(prompt_type: str) -> str:
    name = "".join(c if c.isalnum() or c in "_-" else "_" for c in prompt_type)[:64]
    return name or "reply"


def response_format(level: str, req: TextCompletionRequest) -> dict[str, Any] | None:
    """The ``response_format`` a request is sent with at ``level`` (None: send none)."""
    schema = req.response_schema
    if schema is None or level == "none":
        return None
    if level == "json_object":
        return {"type": "json_object", "schema": schema}
    named = {"name": _schema_name(req.prompt_type), "schema": schema, "strict": True}
    return {"type": "json_schema", "json_schema": named}


def level_of(body: dict[str, Any]) -> str:
    """The level a request body was built at (from its ``response_format``)."""
    fmt = body.get("response_format")
    return str(fmt["type"]) if isinstance(fmt, dict) and fmt.get("type") in LEVELS else "none"


class FormatLevel:
    """The level new requests are sent at; lowered only by refusals of that level or above.

    Safe under concurrency without a lock: it reads and writes one attribute, and a refusal
    of a level already left behind changes nothing.
    """

    def __init__(self, level: str = "json_schema") -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown structured output level {level!r}")
        self.current = level

    def refused(self, level: str, reason: str) -> bool:
        """A request sent at ``level`` was refused: step below it (if not already).

        Returns whether the request may be sent again (False when ``level`` was ``none``).
        """
        rank = LEVELS.index(level)
        if rank == len(LEVELS) - 1:
            return False
        lower = LEVELS[rank + 1]
        if LEVELS.index(self.current) < rank + 1:
            log.warning("%s; structured output falls back from %s to %s", reason, level, lower)
            self.current = lower
        return True
