"""Structured output: ask the LLM for a reply matching a JSON schema, and validate what comes back.

``ask(ctx, request, Model)`` sends ``request`` with ``Model``'s JSON schema as its
``response_schema`` (the text-completion service has the server enforce it, see
docs/llm.md) and returns the validated ``Model`` with the response (model, tokens,
latency). A reply that does not validate raises ``BadReply``, which keeps the raw text
so the caller can record it in the trace. Every reply is validated, whether or not the
server enforced the schema: a server may ignore it, or the setting may be ``none``.
"""

from __future__ import annotations

import functools
import json
import re
import time
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from trustgraph_base.messaging import TEXT_COMPLETION, Context
from trustgraph_base.schema import TextCompletionRequest, TextCompletionResponse

M = TypeVar("M", bound=BaseModel)

MAX_QUOTED = 200
_OPENING = re.compile(r"```[a-zA-Z]*\s*")
# Keywords that only describe a schema; strict servers refuse some of them.
_DROPPED = frozenset({"title", "default", "description", "examples"})


class BadReply(ValueError):
    """The LLM's reply is not valid for the requested schema; ``text`` is the raw reply."""

    def __init__(self, message: str, text: str, response: TextCompletionResponse | None = None):
        super().__init__(message)
        self.text = text
        self.response = response
        self.latency_ms = 0.0


@dataclass(frozen=True)
class Structured(Generic[M]):
    """A validated reply, the response it came in, and the call's wall time in ms."""

    value: M
    response: TextCompletionResponse
    latency_ms: float


class EdgeList(BaseModel):
    """A reply ``{"edges": [...]}`` (a bare list is accepted too); a subclass declares ``edges``."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, value: Any) -> Any:
        return {"edges": value} if isinstance(value, list) else value


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema as strict servers take it: ``$defs`` inlined, descriptive keywords
    dropped, every object closed (``additionalProperties: false``) with every property
    required. A pydantic default does not make a field optional for the model: validation
    still accepts it missing."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return walk(defs[ref.removeprefix("#/$defs/")])
        out = {k: walk(v) for k, v in node.items() if k not in _DROPPED and k != "$defs"}
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        return out

    result: dict[str, Any] = walk(schema)
    return result


def limit_strings(schema: dict[str, Any], max_length: int) -> dict[str, Any]:
    """``schema`` with ``maxLength`` on every free string (no enum, no limit of its own).

    A server that enforces the schema with a grammar will otherwise let a small model write
    one string until it runs out of tokens. The limit is asked of the server only; the
    validation of the reply does not enforce it.
    """
    if isinstance(schema, dict):
        if schema.get("type") == "string" and "enum" not in schema:
            schema.setdefault("maxLength", max_length)
        for value in schema.values():
            if isinstance(value, dict):
                limit_strings(value, max_length)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, dict):
                        limit_strings(item, max_length)
    return schema


def schema_of(model: type[BaseModel], max_length: int | None = None) -> dict[str, Any]:
    """The strict JSON schema of a pydantic model (what ``ask`` sends by default), its free
    strings limited to ``max_length`` characters when given: a copy of its own, which the
    caller may narrow (made once per model: pydantic takes ~1 ms to generate one, and each
    GraphRAG question asks for two)."""
    schema: dict[str, Any] = json.loads(_schema_text(model, max_length))
    return schema


@functools.cache
def _schema_text(model: type[BaseModel], max_length: int | None) -> str:
    schema = strict_schema(model.model_json_schema())
    return json.dumps(limit_strings(schema, max_length) if max_length else schema)


def unfenced(text: str) -> str:
    """``text`` stripped, less the Markdown code fence around it (an opening "```json" and a
    closing "```", either alone too). Looked for at the two ends only: a regex that tried
    every place for the closing one took ~70 ns a character, 0.23 ms for a 3 kB reply."""
    body = text.strip()
    opening = _OPENING.match(body)
    if opening is not None:
        body = body[opening.end() :]
    if body.endswith("```"):
        body = body[:-3]
    return body.strip()


def parse_json(text: str) -> Any:
    """The first JSON value in a reply (a code fence around it and text after it are ignored).

    Raw control characters inside strings are accepted: llama-cpp-python's grammar for a
    length-limited string lets a model write a bare newline there.
    """
    body = unfenced(text)
    try:
        value, _ = json.JSONDecoder(strict=False).raw_decode(body)
    except json.JSONDecodeError as exc:
        raise BadReply(
            f"not JSON ({exc.msg} at char {exc.pos}): {text[:MAX_QUOTED]!r}", text
        ) from None
    return value


def validate(text: str, model: type[M]) -> M:
    """Parse and validate one reply; ``BadReply`` names the first thing wrong."""
    value = parse_json(text)
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(x) for x in first["loc"]) or "(top)"
        raise BadReply(f"does not match the schema ({where}: {first['msg']})", text) from None


async def ask(
    ctx: Context[Any],
    request: TextCompletionRequest,
    model: type[M],
    *,
    schema: dict[str, Any] | None = None,
    timeout: float | None = None,
) -> Structured[M]:
    """One non-streamed LLM call whose reply must validate as ``model``.

    ``schema`` overrides the JSON schema sent (e.g. narrowed to the ids or tool names of
    this request); it defaults to ``schema_of(model)``. Raises ``BadReply`` (with the
    response) when the reply does not validate; service errors and timeouts pass through.
    """
    sent = request.model_copy(
        update={"response_schema": schema or schema_of(model), "streaming": False}
    )
    started = time.monotonic()
    wait = timeout if timeout is not None else ctx.settings.request_timeout
    response = await ctx.client(TEXT_COMPLETION).request(sent, timeout=wait)
    latency = (time.monotonic() - started) * 1000.0
    try:
        value = validate(response.response, model)
    except BadReply as exc:
        exc.response, exc.latency_ms = response, latency
        raise
    return Structured(value, response, latency)
