"""What a structured step relies on: the ids of earlier entities of its session it names in
``uses`` (SPEC.md, the agent graph), checked and turned into the URIs its analysis (or the
conclusion) is ``prov:wasDerivedFrom``.

An id is the entity's URI after the session's (``i1``, ``i1/observation``, ``i2/c1/observation``)
or ``question``; the session-qualified URI itself is taken too. A name that is not an earlier
entity of this session — a later step, the step itself, another session's entity, something
that does not exist — is a ``ParseError`` the model sees as its observation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from trustgraph_base.provenance import uris
from trustgraph_flow.agent.prompt import Step
from trustgraph_flow.agent.react import ParseError

QUESTION = "question"
MAX_USES = 50  # a step relies on a few entities; more is a model that does not stop
_STEP = re.compile(r"i([0-9]+)(?:/.*)?")


def usable(session_uri: str, steps: Sequence[Step]) -> list[str]:
    """The URIs the step after ``steps`` (the session's, in order) may name as used: the
    question, then each step's analysis and its observation — or, for a step that called
    several tools at once, each call and its observation."""
    found = [session_uri]
    for n, step in enumerate(steps, 1):
        analysis = uris.agent_iteration_uri(session_uri, n)
        found.append(analysis)
        if not step.calls:
            found.append(uris.agent_observation_uri(analysis))
        for k in range(1, len(step.calls) + 1):
            call = uris.agent_call_uri(analysis, k)
            found += [call, uris.agent_observation_uri(call)]
    return found


def entity_id(session_uri: str, uri: str) -> str:
    """The id the model names ``uri`` by (``question`` for the session itself)."""
    return QUESTION if uri == session_uri else uri.removeprefix(session_uri + "/")


def resolve_uses(
    named: Sequence[str], session_uri: str, known: Sequence[str], step: int, thought: str = ""
) -> list[str]:
    """The URIs of the entities ``named`` (ids or URIs), in order, once each; ``known``: the URIs
    a step ``step`` may use (the question and every earlier analysis and observation)."""
    if len(named) > MAX_USES:
        raise ParseError(f"'uses' names {len(named)} entities; at most {MAX_USES}", thought)
    offered = {entity_id(session_uri, uri): uri for uri in known}
    found: list[str] = []
    for raw in named:
        name = raw.strip()
        if "://" in name or name.startswith("urn:"):
            if name != session_uri and not name.startswith(session_uri + "/"):
                raise ParseError(
                    f"'uses' names {_quoted(name)}, which is not of this session", thought
                )
            name = entity_id(session_uri, name)
        if name in offered:
            found.append(offered[name])
            continue
        match = _STEP.fullmatch(name)
        if match and int(match.group(1)) == step:
            why = "this step itself: a step uses what came before it"
        elif match and int(match.group(1)) > step:
            why = f"a later step (this is step {step})"
        else:
            why = "not an earlier step's analysis or observation, nor the question"
        raise ParseError(f"'uses' names {_quoted(name)}, which is {why}", thought)
    return list(dict.fromkeys(found))


def _quoted(name: str) -> str:
    return repr(name[:120])
