"""Every prompt a processor sends the LLM, by id: its default system text and template (today's
texts, written once in the processors' modules) and how a request fills its variables.

A request's ``prompt_type`` names its prompt (``agent-react`` with a reply schema is
``agent-react-json``); one whose type is not here (``text``: a question passed straight on)
is sent as it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from trustgraph_base.schema import TextCompletionRequest
from trustgraph_flow import extraction
from trustgraph_flow.agent import prompt as agent_prompt
from trustgraph_flow.document_rag import prompt as docrag_prompt
from trustgraph_flow.graph_rag import select
from trustgraph_flow.prompts.templates import digest, placeholders
from trustgraph_flow.verify import judge

Fill = Callable[[TextCompletionRequest], dict[str, str]]


@dataclass(frozen=True)
class PromptSpec:
    """One prompt: what it is for, its default texts, and its variables from a request."""

    id: str
    about: str
    system: str
    template: str
    response_type: str  # "json" or "text", as the reference's prompt configuration says
    fill: Fill

    @property
    def variables(self) -> set[str]:
        return placeholders(self.template)

    @property
    def digest(self) -> str:
        return digest(self.system, self.template)

    def value(self) -> dict[str, Any]:
        """The configuration value of the default (type ``prompt``, key ``template.ID``)."""
        return {
            "id": self.id,
            "prompt": self.template,
            "system": self.system,
            "response-type": self.response_type,
        }


def _v(request: TextCompletionRequest) -> dict[str, Any]:
    return request.variables


def _select(r: TextCompletionRequest) -> dict[str, str]:
    edges = [f"{e['id']}: {e['s']} | {e['p']} | {e['o']}" for e in _v(r)["edges"]]
    return {"question": _v(r)["question"], "edges": "\n".join(edges), "max": str(_v(r)["max"])}


def _answer(r: TextCompletionRequest) -> dict[str, str]:
    return {"question": _v(r)["question"], "facts": select.fact_lines(_v(r))}


def _excerpts(r: TextCompletionRequest) -> dict[str, str]:
    chunks = _v(r)["chunks"]
    excerpts = "\n\n".join(f"[{n}] {text}" for n, text in enumerate(chunks, start=1))
    return {"question": _v(r)["question"], "excerpts": excerpts}


def _steps(r: TextCompletionRequest) -> dict[str, str]:
    # The agent's user message (tools, question, steps so far) is built by the agent as a
    # whole; a template places it and may add to it.
    return {"steps": r.prompt}


def _judged(r: TextCompletionRequest) -> dict[str, str]:
    return {"question": _v(r)["question"], "claims": judge.render_claims(_v(r)["claims"])}


_SPECS = (
    PromptSpec(
        "extract-edges",
        "the extractor: edges (with their quoted sentence) from one chunk",
        extraction.SYSTEM,
        extraction.PROMPT.replace("{text}", "{{text}}"),
        "json",
        lambda r: {"text": _v(r)["text"]},
    ),
    PromptSpec(
        "graph-rag-select",
        "GraphRAG's edge selection: which retrieved edges matter, with a reason each",
        select.SELECT_SYSTEM,
        "Question: {{question}}\n\nEdges:\n{{edges}}\n\nChoose at most {{max}} edges. JSON:",
        "json",
        _select,
    ),
    PromptSpec(
        "graph-rag-answer",
        "GraphRAG's synthesis: the answer from the selected facts",
        select.ANSWER_SYSTEM,
        "Facts:\n{{facts}}\n\nQuestion: {{question}}\n\nAnswer:",
        "text",
        _answer,
    ),
    PromptSpec(
        "document-rag-answer",
        "DocumentRAG's synthesis: the answer from the nearest excerpts",
        docrag_prompt.SYSTEM,
        "Document excerpts:\n\n{{excerpts}}\n\nQuestion: {{question}}\n\nAnswer:",
        "text",
        _excerpts,
    ),
    PromptSpec(
        "agent-react",
        "the agent's step (ReAct text: Thought, Action, Args or Final Answer)",
        agent_prompt.SYSTEM,
        "{{steps}}",
        "text",
        _steps,
    ),
    PromptSpec(
        "agent-react-json",
        "the agent's step as JSON (thought, next action or final answer)",
        agent_prompt.SYSTEM_JSON,
        "{{steps}}",
        "json",
        _steps,
    ),
    PromptSpec(
        judge.PROMPT_TYPE,
        "the claim check's judge: each claim of an answer against the evidence it cites",
        judge.JUDGE_SYSTEM,
        judge.JUDGE_TEMPLATE,
        "json",
        _judged,
    ),
)

PROMPTS: dict[str, PromptSpec] = {s.id: s for s in _SPECS}
SYSTEM_KEY = "system"  # the reference's one system prompt: here, put before each prompt's own
TEMPLATE_PREFIX = "template."
INDEX_KEY = "template-index"  # the reference's list of template ids (read by its clients)


def prompt_id(request: TextCompletionRequest) -> str | None:
    """The id of the prompt ``request`` is (None: not one of ours)."""
    kind = request.prompt_type
    structured = request.response_schema is not None or request.system == agent_prompt.SYSTEM_JSON
    if kind == "agent-react" and structured:
        kind = "agent-react-json"
    return kind if kind in PROMPTS else None


def default_values() -> dict[str, str]:
    """The ``prompt`` configuration when a user has set none (key → JSON value)."""
    out = {SYSTEM_KEY: json.dumps(""), INDEX_KEY: json.dumps(sorted(PROMPTS))}
    for spec in _SPECS:
        out[TEMPLATE_PREFIX + spec.id] = json.dumps(spec.value())
    return out
