"""Pieces of an agent trace's text view: what a step used, and a call of a step that called
several tools at once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from trustgraph_cli.render.tree import Field, Node

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import AgentCallView, AgentStepView

NOTHING = "(none)"  # an observation recorded empty


def uses_text(root: str, uses: list[str]) -> str:
    """What a step (or the conclusion) used, as steps: ``step 1, step 3`` (a call: ``step 2
    call 1``; the question: ``the question``); anything outside the trace by its URI."""
    names: list[str] = []
    for uri in uses:
        rest = uri.removeprefix(root + "/").removesuffix("/observation")
        if uri == root:
            names.append("the question")
        elif rest != uri and rest.startswith("i"):
            step, _, call = rest[1:].partition("/c")
            names.append(f"step {step} call {call}" if call else f"step {step}")
        else:
            names.append(uri)
    return ", ".join(dict.fromkeys(names))


def named_uses(root: str, uses: list[str], step: int | None = None) -> bool:
    """Whether ``uses`` is what a step (number ``step``; None: the conclusion) named, not the
    seed's chain: from the step before (the first from the question); the conclusion from
    one analysis, the last (or from the question)."""
    if not uses:
        return False
    if step is not None:
        return uses != ([root] if step == 1 else [f"{root}/i{step - 1}"])
    from trustgraph_base.provenance.uris import agent_step_index

    one = uses[0] if len(uses) == 1 else None
    return one is None or not (one == root or agent_step_index(root, one) is not None)


def step_fields(
    root: str, step: AgentStepView, cut: Callable[[str], str], pending: str
) -> list[Field]:
    """A step's fields: its thought, action and arguments, what it used when it named that,
    its observation (a step of several calls: each call shows its own), and a dead end."""
    texts = [
        ("Thought", step.thought, ()),
        ("Action", step.action, ("green",)),
        ("Arguments", "" if step.calls else step.arguments, ()),
    ]
    fields = [Field(label, cut(t), paint) for label, t, paint in texts if t]
    if named_uses(root, step.uses, step.index):
        fields.append(Field("Uses", uses_text(root, step.uses), ("cyan",)))
    if not step.calls:
        seen = step.observation
        if seen is None:
            fields.append(Field("Observation", pending, ("yellow",)))
        else:  # an empty one (an imported retriever span's) says so
            fields.append(Field("Observation", cut(seen) or NOTHING, () if seen else ("dim",)))
    if not step.used:
        fields.append(Field("Used by the answer", "no (a dead end)", ("yellow",)))
    return fields


def call_node(k: int, call: AgentCallView, cut: Callable[[str], str], pending: str) -> Node:
    """Call ``k`` of a step: its tool, arguments and what it returned."""
    node = Node(f"Call {k}", call.uri, title_paint=("bold", "cyan"))
    node.add("Action", call.action, "green")
    node.add("Arguments", cut(call.arguments))
    seen = call.observation
    node.add("Observation", pending if seen is None else cut(seen) or NOTHING)
    return node
