"""Read the LLM's reply: the structured JSON step, or ReAct text (``Thought/Action/Args`` or
``Thought/Final Answer``) when structured output is off.

The JSON step is ``{"thought": …, "next": {"action": TOOL, "arguments": {…}}}`` or
``{"thought": …, "next": {"action": "final-answer", "answer": …}}`` (``step_schema``).
The text parser is lenient where models are sloppy (label case, code fences, multi-line
JSON, a hallucinated ``Observation:`` after the action) and strict where it matters:
``Args`` must be a JSON object, and a reply with neither an action nor a final answer is
a ``ParseError``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from trustgraph_flow.agent.tools import FINAL_ANSWER, ToolConfig
from trustgraph_flow.structured import limit_strings, unfenced

_LABEL = re.compile(
    r"^[ \t>*#`]*(thought|action input|action|args|arguments|final answer|observation)[ \t*]*:",
    re.IGNORECASE | re.MULTILINE,
)
MAX_QUOTED = 300
MAX_STEP_STRING = 500  # the schema's maxLength for a thought, an argument or the answer
MAX_CALLS = 8  # tools one step may call at once (they run at most ``tool_concurrency`` at a time)


@dataclass(frozen=True)
class Act:
    """The model chose a tool."""

    thought: str
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    uses: tuple[str, ...] = ()  # the ids the step names as used (uses.py), unchecked


@dataclass(frozen=True)
class ActMany:
    """The model chose several tools at once (each an ``Act`` without thought or uses): they
    run concurrently, each its own call and observation in the trace."""

    thought: str
    calls: tuple[Act, ...]
    uses: tuple[str, ...] = ()


@dataclass(frozen=True)
class Finish:
    """The model gave its final answer."""

    thought: str
    answer: str
    uses: tuple[str, ...] = ()


class ParseError(ValueError):
    """The reply is neither form; ``thought`` keeps whatever reasoning could be read."""

    def __init__(self, message: str, thought: str = "") -> None:
        super().__init__(message)
        self.thought = thought


class NextStep(BaseModel):
    """What the structured step does next: a tool with its arguments, or the final answer."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    action: str = Field(min_length=1)
    arguments: dict[str, Any] = {}
    answer: str = ""


class StepReply(BaseModel):
    """One structured agent step (validated on every reply)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    thought: str = ""
    uses: list[str] = []
    next: NextStep | None  # None when ``next`` was a list of several calls (``calls``)
    calls: list[NextStep] = []

    @model_validator(mode="before")
    @classmethod
    def _several(cls, data: Any) -> Any:
        """``next`` as a list: several tools at once, read into ``calls``."""
        if isinstance(data, dict) and isinstance(data.get("next"), list):
            return {**data, "next": None, "calls": data["next"]}
        return data

    def decision(self) -> Act | ActMany | Finish:
        """The step as an action, several at once, or the final answer; ``ParseError`` for an
        empty answer, or a list of calls that is empty, too long or holds the final answer."""
        thought = self.thought.strip()
        uses = tuple(self.uses)
        if self.next is None:
            if not self.calls:
                raise ParseError("'next' names no tool call", thought)
            if len(self.calls) > MAX_CALLS:
                raise ParseError(
                    f"'next' asks for {len(self.calls)} tool calls at once; at most {MAX_CALLS}"
                    " per step",
                    thought,
                )
            if any(call.action == FINAL_ANSWER for call in self.calls):
                raise ParseError(f"'{FINAL_ANSWER}' cannot be one of several calls", thought)
            calls = tuple(Act("", c.action.strip(), dict(c.arguments)) for c in self.calls)
            if len(calls) == 1:
                return Act(thought, calls[0].tool, calls[0].arguments, uses)
            return ActMany(thought, calls, uses)
        if self.next.action != FINAL_ANSWER:
            return Act(thought, self.next.action.strip(), dict(self.next.arguments), uses)
        if not self.next.answer.strip():
            raise ParseError("'final-answer' has an empty 'answer'", thought)
        return Finish(thought, self.next.answer.strip(), uses)


def step_schema(
    tools: Sequence[ToolConfig], usable: Sequence[str] = ("question",)
) -> dict[str, Any]:
    """The JSON schema of a step: one branch per tool (its name and argument schema), plus
    the final answer, so that every reply that validates can be carried out. ``anyOf``
    (the branches exclude each other by ``action``): strict servers refuse ``oneOf``.
    ``usable``: the ids ``uses`` may name (the question, earlier analyses and observations)."""
    final = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": [FINAL_ANSWER]},
            "answer": {"type": "string"},
        },
        "required": ["action", "answer"],
        "additionalProperties": False,
    }
    branches = [
        {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": [t.name]},
                "arguments": t.arguments_schema(),
            },
            "required": ["action", "arguments"],
            "additionalProperties": False,
        }
        for t in tools
    ]
    # Several tools at once: a list of tool branches, run concurrently (none on a last step).
    many = [{"type": "array", "items": {"anyOf": branches}, "minItems": 2, "maxItems": MAX_CALLS}]
    schema = {
        "type": "object",
        "properties": {
            "thought": {"type": "string"},
            "uses": {"type": "array", "items": {"type": "string", "enum": list(usable)}},
            "next": {"anyOf": [*branches, final, *(many if branches else [])]},
        },
        "required": ["thought", "uses", "next"],
        "additionalProperties": False,
    }
    return limit_strings(schema, MAX_STEP_STRING)


def _sections(reply: str) -> list[tuple[str, str]]:
    """(label, body) pairs in order of appearance, stopping at a made-up ``Observation``."""
    marks = list(_LABEL.finditer(reply))
    out: list[tuple[str, str]] = []
    for i, mark in enumerate(marks):
        label = mark.group(1).lower()
        if label == "observation":
            break  # the model is inventing the tool's output: ignore the rest
        end = marks[i + 1].start() if i + 1 < len(marks) else len(reply)
        out.append((label, reply[mark.end() : end].strip().lstrip("*").strip()))
    return out


def _arguments(text: str, thought: str) -> dict[str, Any]:
    body = unfenced(text)
    if not body:
        return {}
    try:
        value, _ = json.JSONDecoder().raw_decode(body)
    except json.JSONDecodeError as exc:
        raise ParseError(
            f"Args is not valid JSON ({exc.msg}): {body[:MAX_QUOTED]}", thought
        ) from None
    if not isinstance(value, dict):
        raise ParseError(f"Args must be a JSON object, got: {body[:MAX_QUOTED]}", thought)
    return value


def parse_reply(reply: str) -> Act | Finish:
    """Read one LLM reply; raise ``ParseError`` saying what is wrong."""
    sections = _sections(reply)
    found = {label: body for label, body in reversed(sections)}  # first occurrence wins
    thought = found.get("thought", "")
    order = [label for label, _ in sections if label in ("action", "final answer")]
    if not order:
        raise ParseError("found neither 'Action:' nor 'Final Answer:'", thought)
    if order[0] == "final answer":
        answer = found["final answer"]
        if not answer:
            raise ParseError("'Final Answer:' is empty", thought)
        return Finish(thought, answer)
    lines = found["action"].strip().splitlines()
    tool = lines[0].strip().strip("`'\"").strip() if lines else ""
    if not tool:
        raise ParseError("'Action:' names no tool", thought)
    raw_args = found.get("args", found.get("arguments", found.get("action input", "")))
    return Act(thought, tool, _arguments(raw_args, thought))
