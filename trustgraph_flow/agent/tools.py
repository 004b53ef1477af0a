"""The agent's tools: their configuration (names, descriptions, arguments) and how each runs.

A tool's ``kind`` says what it does; its ``name``, ``description`` and ``arguments`` are
what the LLM sees. The value of the first declared argument is the tool's input.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from trustgraph_base.errors import RequestTimeout, ServiceError
from trustgraph_base.messaging import TEXT_COMPLETION, Context
from trustgraph_base.provenance.uris import tool_session_id
from trustgraph_base.provenance.verification import verdict_of
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import DocumentRagRequest, GraphRagRequest, TextCompletionRequest
from trustgraph_base.schema.rag import RagResponse
from trustgraph_flow.agent.evidence import (
    DOCUMENT_RAG_READ,
    EXPLAIN_READ,
    GRAPH_RAG_READ,
    ToolEvidence,
)

ToolKind = Literal["knowledge-query", "document-query", "text-completion"]
FINAL_ANSWER = "final-answer"  # the structured step's action that ends the loop; no tool's name
# Argument types the JSON schema of a step can state; any other type is asked as a string.
_JSON_TYPES = frozenset({"string", "number", "integer", "boolean"})


class ToolArgument(BaseModel):
    """One argument the LLM must pass (in ``Args``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str = Field(min_length=1)
    type: str = "string"
    description: str = ""


class ToolConfig(BaseModel):
    """A tool as configured: what the LLM is told and which implementation runs."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str = Field(min_length=1, pattern=r"^\S+$")
    kind: ToolKind
    description: str = Field(min_length=1)
    arguments: list[ToolArgument] = Field(min_length=1)
    groups: list[str] = ["default"]

    def arguments_schema(self) -> dict[str, Any]:
        """The JSON schema of this tool's arguments object (every argument required)."""
        props = {
            a.name: {"type": a.type if a.type in _JSON_TYPES else "string"} for a in self.arguments
        }
        return {
            "type": "object",
            "properties": props,
            "required": list(props),
            "additionalProperties": False,
        }

    def prompt_view(self) -> dict[str, Any]:
        """The tool as the ``agent-react`` prompt variables describe it."""
        return {
            "name": self.name,
            "description": self.description,
            "arguments": [a.model_dump() for a in self.arguments],
        }


def _question_arg(what: str) -> list[ToolArgument]:
    return [ToolArgument(name="question", description=what)]


DEFAULT_TOOLS: tuple[ToolConfig, ...] = (
    ToolConfig(
        name="knowledge-query",
        kind="knowledge-query",
        description="Answer a question from the knowledge graph extracted from the documents "
        "(facts about entities and how they relate).",
        arguments=_question_arg("The question to ask the knowledge graph."),
    ),
    ToolConfig(
        name="document-query",
        kind="document-query",
        description="Answer a question from the text of the documents (passages that match it).",
        arguments=_question_arg("The question to answer from the documents."),
    ),
    ToolConfig(
        name="text-completion",
        kind="text-completion",
        description="Ask the language model directly, without looking anything up "
        "(reasoning, rephrasing, general knowledge).",
        arguments=_question_arg("The question or instruction for the language model."),
    ),
)

_TOOL_LIST = TypeAdapter(list[ToolConfig])


def load_tools(raw: str) -> tuple[ToolConfig, ...]:
    """Tools from the JSON ``tools`` setting (a list of tool objects); empty means defaults."""
    if not raw.strip():
        return DEFAULT_TOOLS
    try:
        tools = _TOOL_LIST.validate_json(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"bad tools setting at {where or '(top)'}: {first['msg']}") from None
    names = [t.name for t in tools]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"bad tools setting: duplicate tool names {duplicates}")
    if FINAL_ANSWER in names:
        raise ValueError(f"bad tools setting: {FINAL_ANSWER!r} is reserved for the final answer")
    return tuple(tools)


def select_tools(tools: Sequence[ToolConfig], group: Sequence[str] | None) -> list[ToolConfig]:
    """The tools a request may use: all when ``group`` is empty, else those named by it or in one
    of its groups."""
    if not group:
        return list(tools)
    wanted = set(group)
    return [t for t in tools if t.name in wanted or wanted.intersection(t.groups)]


class ToolFailure(Exception):
    """A tool could not produce an observation; the message is shown to the LLM.

    ``cause`` is the service's error when there was one (``no-data``: nothing to search).
    """

    def __init__(self, message: str, cause: ServiceError | None = None) -> None:
        super().__init__(message)
        self.cause = cause


@dataclass(frozen=True)
class ToolCall:
    """Everything a tool run needs besides its arguments."""

    ctx: Context[Any]
    user: str
    collection: str
    parent_uri: str
    timeout: float
    retake: bool = False  # a step a rerun takes again: its tool may have been asked already
    evidence: ToolEvidence = field(default_factory=ToolEvidence)  # the session's: added to


def tool_input(tool: ToolConfig, arguments: dict[str, Any]) -> str:
    """The value of the tool's first argument, as text; ``ToolFailure`` if missing or empty."""
    name = tool.arguments[0].name
    value = arguments.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        expected = json.dumps({a.name: "..." for a in tool.arguments})
        raise ToolFailure(f"tool '{tool.name}' needs the argument '{name}', e.g. Args: {expected}")
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


async def verified(replies: AsyncIterator[RagResponse], evidence: ToolEvidence) -> str:
    """A RAG tool's answer as the observation, carrying its verification's verdict: an
    answer withheld says so itself ("The documents do not say: …"); one kept unsupported or
    partly supported gets ``[verification: …]`` after it, so the agent can try another tool.
    Its supported claims go to ``evidence``: what the agent's conclusion is checked against."""
    answer: list[str] = []
    verdict = None
    seen: list[Triple] = []
    async for resp in replies:
        if resp.message_type == "explain":
            verdict = verdict or verdict_of(resp.explain_triples)
            seen += resp.explain_triples
        elif resp.response:
            answer.append(resp.response)
    evidence.add(seen)
    text = "".join(answer)
    if verdict is None or verdict[2] or verdict[0] == "supported":
        return text
    return f"{text}\n[verification: {verdict[0]}: {verdict[1]}]"


async def run_tool(tool: ToolConfig, arguments: dict[str, Any], call: ToolCall) -> str:
    """Run one tool and return its observation; ``ToolFailure`` says why it could not."""
    query = tool_input(tool, arguments)
    # The same id each time this step is taken (``tool_session_id``): one sub-trace.
    session = tool_session_id(call.parent_uri) if call.parent_uri else ""
    try:
        if tool.kind == "knowledge-query":
            graph = GraphRagRequest(
                query=query, user=call.user, collection=call.collection,
                parent_uri=call.parent_uri, session_id=session, retake=call.retake or None,
                explain_read=EXPLAIN_READ,
            )  # fmt: skip
            replies = call.ctx.client(GRAPH_RAG_READ).stream(graph, timeout=call.timeout)
            return await verified(replies, call.evidence)
        if tool.kind == "document-query":
            docs = DocumentRagRequest(
                query=query, user=call.user, collection=call.collection,
                parent_uri=call.parent_uri, session_id=session, retake=call.retake or None,
                explain_read=EXPLAIN_READ,
            )  # fmt: skip
            found = call.ctx.client(DOCUMENT_RAG_READ).stream(docs, timeout=call.timeout)
            return await verified(found, call.evidence)
        prompt = TextCompletionRequest(
            prompt=query, prompt_type="text", variables={"question": query}
        )
        return (
            await call.ctx.client(TEXT_COMPLETION).request(prompt, timeout=call.timeout)
        ).response
    except ServiceError as exc:
        raise ToolFailure(f"tool '{tool.name}' failed: {exc.message} [{exc.type}]", exc) from None
    except RequestTimeout:
        raise ToolFailure(f"tool '{tool.name}' did not answer within {call.timeout:g}s") from None
    except ValueError as exc:  # a query the service's schema refuses (e.g. too long)
        raise ToolFailure(f"tool '{tool.name}' refused its input: {exc}") from None
