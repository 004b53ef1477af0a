"""What the configuration holds before a user sets anything, and the checks a value must pass.

- ``prompt``: ``system`` (a JSON string put before every prompt's own system text) and
  ``template.ID`` for each prompt of ``trustgraph_flow.prompts.catalogue`` (``{"prompt":
  TEMPLATE, "system"?: TEXT, "response-type"?, "schema"?}``). A template must use exactly
  its prompt's variables; an id that is not one of ours is refused.
- ``tool``: the agent's tools, key = tool id, value the reference's ``{"name", "description",
  "type", "arguments"?, "group"?}``; ``type`` must be a service the agent can call here.
- ``interface-description``: the services of the ``default`` flow (read by tg-show-flows).

Other types are kept as given.
"""

from __future__ import annotations

import json
from typing import Any, get_args

from pydantic import ValidationError

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import SERVICES
from trustgraph_flow.agent.tools import (
    DEFAULT_TOOLS,
    FINAL_ANSWER,
    ToolArgument,
    ToolConfig,
    ToolKind,
)
from trustgraph_flow.prompts.catalogue import (
    INDEX_KEY,
    PROMPTS,
    SYSTEM_KEY,
    TEMPLATE_PREFIX,
    default_values,
)
from trustgraph_flow.prompts.templates import check

PROMPT, TOOL, INTERFACE = "prompt", "tool", "interface-description"


def tool_value(tool: ToolConfig) -> dict[str, Any]:
    """A tool as the reference's configuration writes it."""
    return {
        "name": tool.name,
        "description": tool.description,
        "type": tool.kind,
        "arguments": [a.model_dump() for a in tool.arguments],
        "group": list(tool.groups),
    }


def interfaces() -> dict[str, str]:
    return {
        name: json.dumps(
            {"description": f"the {name} service", "kind": "request-response", "visible": True}
        )
        for name in sorted(SERVICES)
    }


DEFAULTS: dict[str, dict[str, str]] = {
    PROMPT: default_values(),
    TOOL: {t.name: json.dumps(tool_value(t)) for t in DEFAULT_TOOLS},
    INTERFACE: interfaces(),
}


def _refuse(type_: str, key: str, why: str) -> ServiceError:
    return ServiceError(ErrorType.BAD_REQUEST, f"config {type_}/{key}: {why}")


def _json(type_: str, key: str, value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError as exc:
        raise _refuse(type_, key, f"the value must be JSON: {exc}") from None


def check_prompt(key: str, value: str) -> None:
    data = _json(PROMPT, key, value)
    if key == SYSTEM_KEY:
        if not isinstance(data, str):
            raise _refuse(PROMPT, key, "the system prompt must be a JSON string")
        return
    known = ", ".join(sorted(PROMPTS))
    if key == INDEX_KEY:  # as it reads (a configuration exported and imported again): kept
        if isinstance(data, list) and sorted(data) == sorted(PROMPTS):
            return
        raise _refuse(PROMPT, key, f"the index lists the prompts the processors use ({known})")
    if not key.startswith(TEMPLATE_PREFIX):
        raise _refuse(PROMPT, key, f"keys are 'system' and 'template.ID' (ids: {known})")
    spec = PROMPTS.get(key.removeprefix(TEMPLATE_PREFIX))
    if spec is None:
        raise _refuse(PROMPT, key, f"no processor uses this prompt (ids: {known})")
    if not isinstance(data, dict) or not isinstance(data.get("prompt"), str):
        raise _refuse(PROMPT, key, 'the value must be {"prompt": TEMPLATE, ...}')
    if not isinstance(data.get("system", ""), str):
        raise _refuse(PROMPT, key, "'system' must be a string")
    why = check(data["prompt"], spec.variables)
    if why is not None:
        raise _refuse(PROMPT, key, why)


def tool_of(key: str, value: str) -> ToolConfig:
    """The agent's tool a ``tool`` value describes; ``ServiceError`` saying what is wrong."""
    data = _json(TOOL, key, value)
    if not isinstance(data, dict):
        raise _refuse(TOOL, key, "the value must be a JSON object")
    kind = data.get("type")
    offered = get_args(ToolKind)
    if kind not in offered:
        raise _refuse(
            TOOL, key, f"tool type {kind!r} names no service here (types: {', '.join(offered)})"
        )
    raw_args = data.get("arguments") or [{"name": "question", "type": "string"}]
    try:
        arguments = [
            ToolArgument(
                name=a.get("name"),
                type=a.get("type") or "string",
                description=a.get("description") or "",
            )
            for a in raw_args
        ]
        return ToolConfig(
            name=data.get("name"),
            kind=kind,
            description=data.get("description"),
            arguments=arguments,
            groups=data.get("group", ["default"]),
        )
    except (ValidationError, AttributeError, TypeError) as exc:
        first = exc.errors(include_url=False)[0] if isinstance(exc, ValidationError) else None
        why = f"{'.'.join(map(str, first['loc']))}: {first['msg']}" if first else str(exc)
        raise _refuse(TOOL, key, why) from None


def check_tool(key: str, value: str) -> None:
    if tool_of(key, value).name == FINAL_ANSWER:
        raise _refuse(TOOL, key, f"{FINAL_ANSWER!r} is the final answer's, not a tool's name")


def check_value(type_: str, key: str, value: str) -> None:
    """``ServiceError`` when ``value`` cannot be ``type_/key`` (nothing is changed then)."""
    if type_ == PROMPT:
        check_prompt(key, value)
    elif type_ == TOOL:
        check_tool(key, value)
