"""A session cut short by a kill, continued by the next process: the steps its trace already
holds (read back from the run journal's messages), so the loop goes on after them and no
step is taken or recorded twice."""

from __future__ import annotations

import json

from trustgraph_base.provenance import TG, uris
from trustgraph_base.rdf.terms import LiteralTerm, Triple
from trustgraph_flow.agent.prompt import Step


def _texts(triples: list[Triple]) -> dict[str, str]:
    """Each literal-valued predicate of an entity and its (last) value."""
    return {t.p.i: t.o.v for t in triples if isinstance(t.o, LiteralTerm)}


def recorded_steps(recorded: dict[str, list[Triple]], uri: str) -> list[Step]:
    """The analyses ``…/i1``, ``…/i2``, … the session's trace holds, in order, as steps."""
    steps: list[Step] = []
    while (found := recorded.get(uris.agent_iteration_uri(uri, len(steps) + 1))) is not None:
        facts = _texts(found)
        try:
            arguments = json.loads(facts.get(TG.arguments.i, "{}"))
        except ValueError:
            arguments = {}
        steps.append(
            Step(
                facts.get(TG.thought.i, ""),
                facts.get(TG.action.i, ""),
                arguments if isinstance(arguments, dict) else {},
                facts.get(TG.observation.i, ""),
            )
        )
    return steps


def recorded_answer(recorded: dict[str, list[Triple]], uri: str) -> str | None:
    """The conclusion's answer, if the session had concluded before it was cut short."""
    found = recorded.get(uris.agent_final_uri(uri))
    return None if found is None else _texts(found).get(TG.answer.i)
