"""The agent's prompt: rendered text for an HTTP LLM plus ``agent-react`` variables for the
offline engine (docs/design.md, LLM prompts). Structured (the default), the reply is a JSON
step whose schema goes with the request; otherwise ReAct text."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from trustgraph_base.provenance import arguments_json
from trustgraph_base.schema import TextCompletionRequest
from trustgraph_flow.agent.tools import FINAL_ANSWER, ToolConfig

SYSTEM = """You are a careful research agent. You answer the user's question by thinking step \
by step and using the tools listed below; you never invent facts a tool did not give you.

Reply in exactly one of these two forms, and nothing else.

To use a tool:
Thought: <your reasoning about what to do next>
Action: <one tool name from the list>
Args: <a JSON object with the tool's arguments>

When you know the answer:
Thought: <your reasoning>
Final Answer: <the answer to the user's question>

Never write an Observation yourself: the tool's result is given to you as the Observation."""

SYSTEM_JSON = f"""You are a careful research agent. You answer the user's question by thinking step \
by step and using the tools listed below; you never invent facts a tool did not give you.

Reply with one JSON object and nothing else.

To use a tool:
{{"thought": "<your reasoning about what to do next>", "uses": [<ids>], \
"next": {{"action": "<one tool name from the list>", "arguments": {{<the tool's arguments>}}}}}}

When you know the answer:
{{"thought": "<your reasoning>", "uses": [<ids>], "next": {{"action": "{FINAL_ANSWER}", "answer": "<the answer>"}}}}

The tool's result is given to you as the Observation of that step. In "uses" name what this \
step relies on: the ids in brackets of the earlier observations (or steps) it builds on, or \
"question"; [] continues from the step before."""


@dataclass(frozen=True)
class Call:
    """One of several tools a step called at once, and what it returned."""

    action: str
    arguments: dict[str, Any] = field(default_factory=dict)
    observation: str = ""

    def view(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "arguments": dict(self.arguments),
            "observation": self.observation,
        }


@dataclass(frozen=True)
class Step:
    """One completed iteration as the next prompt shows it."""

    thought: str
    action: str
    arguments: dict[str, Any] = field(default_factory=dict)
    observation: str = ""
    ref: str = ""  # its id in this session's trace (``i3``); "" for the request's history
    uses: tuple[str, ...] = ()  # the URIs it named as used (none: the linear chain)
    calls: tuple[Call, ...] = ()  # the tools it called at once (then ``action`` names them all)

    def view(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "thought": self.thought,
            "action": self.action,
            "arguments": dict(self.arguments),
            "observation": self.observation,
        }
        if self.calls:
            shown["calls"] = [c.view() for c in self.calls]
        return {**shown, "id": self.ref} if self.ref else shown


def _tool_line(tool: ToolConfig, structured: bool = False) -> str:
    args = ", ".join(
        f"{a.name} ({a.type})" + (f": {a.description}" if a.description else "")
        for a in tool.arguments
    )
    example = json.dumps({a.name: "..." for a in tool.arguments})
    if structured:
        call = json.dumps(
            {"action": tool.name, "arguments": {a.name: "..." for a in tool.arguments}}
        )
        return f'- {tool.name}: {tool.description}\n  Arguments: {args}\n  Example: "next": {call}'
    return f"- {tool.name}: {tool.description}\n  Arguments: {args}\n  Example: Args: {example}"


def _step_text(step: Step, structured: bool = False) -> str:
    ids = structured and step.ref  # the ids ``uses`` names, shown to the JSON step only
    lines = [f"[{step.ref}] Thought: {step.thought}" if ids else f"Thought: {step.thought}"]
    if step.calls:  # several tools at once: each call, its arguments and what it returned
        for k, call in enumerate(step.calls, 1):
            ref = f"{step.ref}/c{k}"
            lines += [
                f"[{ref}] Action: {call.action}",
                f"Args: {arguments_json(call.arguments)}",
                f"Observation [{ref}/observation]: {call.observation}",
            ]
        return "\n".join(lines)
    if step.action:
        lines += [f"Action: {step.action}", f"Args: {arguments_json(step.arguments)}"]
    seen = f"Observation [{step.ref}/observation]" if ids else "Observation"
    lines.append(f"{seen}: {step.observation}")
    return "\n".join(lines)


LAST_STEP = (
    f'This is your last step: reply with "{FINAL_ANSWER}", answering the question from the '
    "observations so far (say so if they do not answer it)."
)


def render_prompt(
    question: str,
    tools: Sequence[ToolConfig],
    history: Sequence[Step],
    structured: bool = False,
    last: bool = False,
) -> str:
    """The user message: tools, the question and the steps so far."""
    tool_lines = [_tool_line(t, structured) for t in tools] or ["(none: answer directly)"]
    parts = ["Tools:", *tool_lines]
    parts += ["", f"Question: {question}"]
    if history:
        parts += ["", "Steps so far:", *(_step_text(s, structured) for s in history)]
    if structured and last:
        parts += ["", LAST_STEP]
    elif structured:
        parts += [
            "",
            f'Reply with the JSON of your next step: a tool, or "{FINAL_ANSWER}" '
            "when the observations answer the question.",
        ]
    else:
        parts += [
            "",
            "Reply with your next Thought and either an Action with Args or a Final Answer.",
        ]
    return "\n".join(parts)


MAX_STEP_TOKENS = 512  # a step is short; this bounds a model that does not stop


def react_request(
    question: str,
    tools: Sequence[ToolConfig],
    history: Sequence[Step],
    structured: bool = False,
    last: bool = False,
) -> TextCompletionRequest:
    """The text-completion request for the next step (the JSON step when ``structured``;
    ``last``: a structured step that may only give the final answer)."""
    variables: dict[str, Any] = {
        "question": question,
        "tools": [t.prompt_view() for t in tools],
        "history": [s.view() for s in history],
    }
    if last:
        variables["final"] = True
    return TextCompletionRequest(
        system=SYSTEM_JSON if structured else SYSTEM,
        prompt=render_prompt(question, tools, history, structured, last),
        prompt_type="agent-react",
        max_tokens=MAX_STEP_TOKENS if structured else None,
        variables=variables,
    )
