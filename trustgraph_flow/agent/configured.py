"""The tools a user's agent runs with: the user's ``tool`` configuration (the configuration
service, ``trustgraph_flow.config``), read at each request so a change takes effect at the
next question. A user who has changed nothing, or a stack without a configuration service,
gets the agent's own ``tools`` setting."""

from __future__ import annotations

import logging
from typing import Any

from trustgraph_base.errors import ServiceError
from trustgraph_base.messaging import Context
from trustgraph_base.schema import ConfigRequest
from trustgraph_flow.agent.tools import FINAL_ANSWER, ToolConfig
from trustgraph_flow.config.values import DEFAULTS, TOOL, tool_of
from trustgraph_flow.prompts.book import ask_config

log = logging.getLogger(__name__)


async def user_tools(
    ctx: Context[Any], user: str, own: tuple[ToolConfig, ...]
) -> tuple[ToolConfig, ...]:
    reply = await ask_config(ctx, ConfigRequest(operation="getvalues", type=TOOL, user=user))
    if reply is None:
        return own
    values = {v.key: v.value for v in reply.values}
    if values == DEFAULTS[TOOL]:
        return own
    tools: dict[str, ToolConfig] = {}
    for key, value in values.items():
        try:
            tool = tool_of(key, value)
        except ServiceError as exc:  # put before a check existed: left out, said once a run
            log.warning("user %r: tool %r left out: %s", user, key, exc.message)
            continue
        if tool.name != FINAL_ANSWER:
            tools.setdefault(tool.name, tool)
    return tuple(tools.values())
