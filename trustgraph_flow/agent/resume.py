"""A session cut short by a kill, continued by the next process: the steps its trace already
holds (read back from the run journal's messages), so the loop goes on after them and no
step is taken or recorded twice."""

from __future__ import annotations

import json
from typing import Any

from trustgraph_base.errors import ErrorType
from trustgraph_base.provenance import FAILED_RUN, TG, uris
from trustgraph_base.rdf.terms import LiteralTerm, Triple
from trustgraph_flow.agent.prompt import Call, Step


def _texts(triples: list[Triple], subject: str | None = None) -> dict[str, str]:
    """Each literal-valued predicate of an entity (of ``subject`` only, when the message holds
    more than one) and its (last) value."""
    return {
        t.p.i: t.o.v
        for t in triples
        if isinstance(t.o, LiteralTerm) and (subject is None or getattr(t.s, "i", None) == subject)
    }


def _arguments(facts: dict[str, str]) -> dict[str, Any]:
    try:
        arguments = json.loads(facts.get(TG.arguments.i, "{}"))
    except ValueError:
        return {}
    return arguments if isinstance(arguments, dict) else {}


def recorded_steps(recorded: dict[str, list[Triple]], uri: str) -> list[Step]:
    """The analyses ``…/i1``, ``…/i2``, … the session's trace holds, in order, as steps (a
    step that called several tools at once with its calls ``…/c1``, ``…/c2``, …)."""
    steps: list[Step] = []
    while (
        found := recorded.get(step := uris.agent_iteration_uri(uri, len(steps) + 1))
    ) is not None:
        facts = _texts(found)
        calls: list[Call] = []
        while (made := recorded.get(call := uris.agent_call_uri(step, len(calls) + 1))) is not None:
            seen = _texts(made, uris.agent_observation_uri(call))  # in the call's message
            done = _texts(made, call)
            calls.append(
                Call(done.get(TG.action.i, ""), _arguments(done), seen.get(TG.observation.i, ""))
            )
        steps.append(
            Step(
                facts.get(TG.thought.i, ""),
                facts.get(TG.action.i, ""),
                {} if calls else _arguments(facts),
                facts.get(TG.observation.i, ""),
                ref=f"i{len(steps) + 1}",
                calls=tuple(calls),
            )
        )
    return steps


def recorded_answer(recorded: dict[str, list[Triple]], uri: str) -> str | None:
    """The conclusion's answer, if the session had concluded before it was cut short (a
    run that had failed has none: ``recorded_failure``)."""
    found = recorded.get(uris.agent_final_uri(uri))
    return None if found is None else _texts(found).get(TG.answer.i)


def recorded_failure(recorded: dict[str, list[Triple]], uri: str) -> tuple[str, ErrorType] | None:
    """Why the session failed and the error's type, if its conclusion says it had
    (``tg:terminationReason`` "error") before it was cut short. That conclusion is sent with
    the question's mark."""
    final = uris.agent_final_uri(uri)
    facts = _texts([*recorded.get(uri, []), *recorded.get(final, [])], final)
    if facts.get(TG.terminationReason.i) != FAILED_RUN:
        return None
    reason = facts.get(TG.error.i, "")
    recorded_type = facts.get(TG.errorType.i)
    if recorded_type:  # any type reads, as on the wire (``ErrorType``)
        return reason, ErrorType(recorded_type)
    return _suffixed(reason)


_NAMED = frozenset(e.value for e in ErrorType)


def _suffixed(reason: str) -> tuple[str, ErrorType]:
    """A failure recorded before ``tg:errorType``: its type is the ``[type]`` its reason ends
    with (``[no-data]``, ``[timeout]``, ``[llm-error]``: one ``ErrorType`` names), read off
    it; ``llm-error`` when it names none (the only failure recorded then without one)."""
    head, _, tail = reason.rpartition(" [")
    if head and tail.endswith("]") and tail[:-1] in _NAMED:
        return head, ErrorType(tail[:-1])
    return reason, ErrorType.LLM_ERROR
