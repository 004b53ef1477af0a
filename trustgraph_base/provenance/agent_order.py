"""Where an agent trace's entities come in its run, by their URIs (``…/i{n}``, ``…/i{n}/c{k}``,
``…/final``): the step that made a tool call, and a sort key in run order."""

from __future__ import annotations

import re

from trustgraph_base.provenance.uris import trace_kind

_AGENT_PLACE = re.compile(r"/i([0-9]+)(?:/c([0-9]+))?(/observation)?$")


def calling_step_uri(uri: str) -> str | None:
    """The step ``…/i{n}`` that made call ``uri`` (``…/i{n}/c{k}``); None for anything else."""
    if trace_kind(uri) != "agent":
        return None
    place = _AGENT_PLACE.search(uri)
    if place is None or place.group(2) is None or place.group(3) is not None:
        return None
    return f"{uri[: place.start()]}/i{place.group(1)}"


def agent_trace_order(uri: str) -> tuple[int, ...]:
    """Where ``uri`` comes in the run of an agent trace, as a sort key: anything not of an
    agent trace (a tool's sub-trace question) first, as it ran inside the step; then the
    question, each step ``…/i{n}`` followed by its tool calls ``…/i{n}/c{k}`` (each with its
    observation) and its observation, steps by number; the conclusion last."""
    if trace_kind(uri) != "agent":
        return (0,)
    if uri.endswith("/final"):
        return (2,)
    place = _AGENT_PLACE.search(uri)
    if place is None:
        return (1,)
    step, call, observation = int(place.group(1)), place.group(2), place.group(3) is not None
    if call is not None:
        return (1, step, 1, int(call), int(observation))
    return (1, step, 2 if observation else 0)
