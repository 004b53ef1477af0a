"""An agent trace's steps as its view shows them: each step's facts, its calls when it called
several tools at once, what it derives from (SPEC.md, the agent graph), and whether the
conclusion depends on it — a dead end the answer does not rely on is marked."""

from __future__ import annotations

from collections.abc import Iterable

from trustgraph_base.provenance.agent import FAILED_RUN
from trustgraph_base.provenance.namespaces import PROV, TG
from trustgraph_base.provenance.uris import agent_final_uri, agent_step_index, agent_step_of
from trustgraph_base.schema.explain import AgentCallView, AgentStepView, TraceView
from trustgraph_flow.store.views.claims import claim_views, verification_view
from trustgraph_flow.store.views.props import Props, text

Parents = dict[str, list[str]]  # entity → what it derives from


def agent_graph(
    props: Props, root: str, subs: dict[str, list[TraceView]], parents: Parents
) -> dict[str, object]:
    """The ``steps``, ``answer``, the conclusion's ``uses``, its ``claims`` and their
    ``verification`` of agent trace ``root`` (of the steps ``props`` holds), ``parents`` the
    whole trace's derivations (every step and call)."""
    final = agent_final_uri(root)
    ending = derived(props, final)
    # A run that failed has a conclusion but no answer: no step is a dead end of it.
    answered = text(props, final, TG.terminationReason) != FAILED_RUN
    used = depended_on(root, ending, parents) if ending and answered else None
    calls: dict[int, list[AgentCallView]] = {}
    for uri in sorted(props):
        n = agent_step_of(root, uri)
        if n is None or agent_step_index(root, uri) is not None or uri.endswith("/observation"):
            continue
        calls.setdefault(n, []).append(
            AgentCallView(
                uri=uri,
                action=text(props, uri, TG.action) or "",
                arguments=text(props, uri, TG.arguments) or "",
                observation=text(props, uri + "/observation", TG.observation),
                subtraces=subs.get(uri, []),
                used=used is None or uri in used,
            )
        )
    steps = [
        AgentStepView(
            uri=uri,
            index=n,
            thought=text(props, uri, TG.thought) or "",
            action=text(props, uri, TG.action) or "",
            arguments=text(props, uri, TG.arguments) or "",
            observation=text(props, uri, TG.observation),
            subtraces=subs.get(uri, []),
            uses=derived(props, uri),
            calls=sorted(calls.get(n, []), key=lambda c: _call_number(c.uri)),
            used=used is None or uri in used,
        )
        for uri in props
        if (n := agent_step_index(root, uri)) is not None
    ]
    return {
        "steps": sorted(steps, key=lambda s: s.index),
        "answer": text(props, final, TG.answer),
        "uses": ending,
        "claims": claim_views(props, final),
        "verification": verification_view(props, final),
    }


def derived(props: Props, uri: str) -> list[str]:
    """What ``uri`` derives from, as the trace names it."""
    found = props.get(uri, {}).get(_DERIVED, [])
    return [v if isinstance(v, str) else getattr(v, "value", "") for v in found]


def depended_on(root: str, start: Iterable[str], parents: Parents) -> set[str]:
    """Every step and call the conclusion depends on, within trace ``root``: what it derives
    from, and back through what each of those derives from. An observation leads to what made
    it (its step, or its call); a call to its step but not to the step's other calls; a step
    used whole (its analysis named, or reached on the seed's chain) to every call it made."""
    calls: dict[str, list[str]] = {}
    for uri in parents:
        if agent_step_of(root, uri) is not None and "/c" in uri.removeprefix(root):
            if not uri.endswith("/observation"):
                calls.setdefault(uri.rsplit("/c", 1)[0], []).append(uri)
    seen: set[str] = set()
    done: set[tuple[str, bool]] = set()
    todo = [(uri, True) for uri in start]
    while todo:
        uri, whole = todo.pop()
        if (uri, whole) in done or not uri.startswith(root + "/"):
            continue
        done.add((uri, whole))
        seen.add(uri)
        if uri.endswith("/observation"):
            todo.append((uri.removesuffix("/observation"), True))
        elif agent_step_index(root, uri) is None and (n := agent_step_of(root, uri)) is not None:
            todo.append((f"{root}/i{n}", False))  # a call: the step that made it, not its siblings
        else:
            todo += [(parent, True) for parent in parents.get(uri, [])]
            if whole:
                todo += [(call, True) for call in calls.get(uri, [])]
    return seen


def _call_number(uri: str) -> int:
    return int(uri.rsplit("/c", 1)[1])


_DERIVED = PROV.wasDerivedFrom.i
