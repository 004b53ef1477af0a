"""The agent's settings and its state (tools and run journal)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from trustgraph_base.messaging import Context
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.agent.tools import ToolConfig
from trustgraph_flow.run_journal import RunJournal


class Settings(ProcessorSettings):
    """Loop limit, tool set and tool timeout (``request_timeout`` bounds each LLM call)."""

    max_iterations: int = Field(default=10, ge=1, le=1000)
    """Most tool steps before the agent stops without an answer."""
    tools: str = ""
    """JSON list of tool objects (docs/agent.md); empty: the three default tools."""
    tool_timeout: float = Field(default=120.0, gt=0)
    """Seconds a tool may take before its step records a timeout."""
    tool_concurrency: int = Field(default=4, ge=1, le=64)
    """Most tool calls of one step running at once (a step may call up to 8 tools)."""
    explainable: bool = True
    """Publish a trace and explain events (off: answers only)."""
    # The same setting as text-completion's (env TG_LLM_STRUCTURED): "none" asks for ReAct
    # text; otherwise each step is a JSON object whose schema goes with the request.
    llm_structured: Literal["json_schema", "json_object", "none"] = "json_schema"
    """How each step's JSON schema is enforced: json_schema, json_object or none."""
    # The same setting as GraphRAG's and DocumentRAG's (env TG_UNSUPPORTED_ANSWERS).
    unsupported_answers: Literal["abstain", "keep"] = "abstain"
    """A conclusion none of whose claims its tools' supported claims support: abstain answers
    that the documents do not say; keep gives it anyway, marked unsupported in the trace."""


@dataclass(frozen=True)
class State:
    """The agent's configured tools, and its run journal."""

    tools: tuple[ToolConfig, ...]
    journal: RunJournal


Ctx = Context[Settings, State]
