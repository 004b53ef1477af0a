"""The flow service: the one pipeline, described as the reference describes its flows.

There is one flow, ``default``, of blueprint ``default``, always running: its processors
(``trustgraph_flow.registry``) and the topics of its services and one-way messages. Starting,
stopping or changing flows and blueprints is refused with why.
"""

from __future__ import annotations

import json
from typing import Any

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.messaging import SERVICES, Topics
from trustgraph_base.messaging import services as topics_of
from trustgraph_base.schema import FlowRequest, FlowResponse
from trustgraph_flow.registry import PROCESSORS

FLOW = BLUEPRINT = "default"
DESCRIPTION = "explaingraph: ingestion (librarian → decoder → chunker → extractor → store) and explainable answers (graph-rag, document-rag, agent)"
ONE_FLOW = (
    "there is one flow, 'default' (blueprint 'default'), always running with every processor; "
    "flows are not started, stopped or changed here (tg-show-flows describes it)"
)


def _one_way(topics: Topics) -> dict[str, str]:
    found = {
        t.name: topics.topic(t) for t in vars(topics_of).values() if isinstance(t, topics_of.Topic)
    }
    return dict(sorted(found.items()))


def interfaces(topics: Topics) -> dict[str, Any]:
    """Each service's request and response topics (a client's replies come on its own
    ``NAME.reply.CLIENT``), and each one-way topic."""
    out: dict[str, Any] = {
        name: {"request": topics.request(spec), "response": topics.reply(spec, "{client}")}
        for name, spec in sorted(SERVICES.items())
    }
    out.update({name: {"flow": topic} for name, topic in _one_way(topics).items()})
    return out


def blueprint(topics: Topics) -> dict[str, Any]:
    return {
        "description": DESCRIPTION,
        "processors": dict(PROCESSORS),
        "interfaces": interfaces(topics),
        "parameters": {},
    }


def flow(topics: Topics) -> dict[str, Any]:
    return {
        "blueprint-name": BLUEPRINT,
        "description": DESCRIPTION,
        "interfaces": interfaces(topics),
        "parameters": {},
    }


def answer(req: FlowRequest, topics: Topics) -> FlowResponse:
    op = req.operation
    if op == "list-flows":
        return FlowResponse(flow_ids=[FLOW])
    if op == "list-blueprints":
        return FlowResponse(blueprint_names=[BLUEPRINT])
    if op == "get-flow":
        if req.flow_id not in ("", FLOW):
            raise ServiceError(ErrorType.NOT_FOUND, f"no flow {req.flow_id!r}: {ONE_FLOW}")
        return FlowResponse(flow=json.dumps(flow(topics)))
    if op == "get-blueprint":
        if req.blueprint_name not in ("", BLUEPRINT):
            raise ServiceError(
                ErrorType.NOT_FOUND, f"no blueprint {req.blueprint_name!r}: {ONE_FLOW}"
            )
        return FlowResponse(blueprint_definition=json.dumps(blueprint(topics)))
    raise ServiceError(ErrorType.BAD_REQUEST, f"flow: {op!r} is not offered: {ONE_FLOW}")
