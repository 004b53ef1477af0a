"""The CLI's integer flags take exactly what the request fields they fill accept."""

from __future__ import annotations

from typing import Any

import click
import pytest
from pydantic import BaseModel, ValidationError

from trustgraph_base.schema import (
    AgentRequest,
    DocumentRagRequest,
    ExplainRequest,
    GraphRagRequest,
    LibrarianRequest,
    TriplesQueryRequest,
)
from trustgraph_cli import (
    invoke_agent,
    invoke_document_rag,
    invoke_graph_rag,
    list_explain_traces,
    load_document,
    query_triples,
)

CASES = [
    (invoke_graph_rag.main, "entity_limit", GraphRagRequest, "entity_limit", True),
    (invoke_graph_rag.main, "triple_limit", GraphRagRequest, "triple_limit", True),
    (invoke_graph_rag.main, "max_subgraph_size", GraphRagRequest, "max_subgraph_size", True),
    (invoke_graph_rag.main, "max_path_length", GraphRagRequest, "max_path_length", True),
    (invoke_graph_rag.main, "max_edges_selected", GraphRagRequest, "max_edges_selected", True),
    (invoke_document_rag.main, "doc_limit", DocumentRagRequest, "doc_limit", True),
    (invoke_agent.main, "max_iterations", AgentRequest, "max_iterations", True),
    (list_explain_traces.main, "limit", ExplainRequest, "limit", True),
    (query_triples.main, "limit", TriplesQueryRequest, "limit", False),
    (load_document.main, "chunk_size", LibrarianRequest, "chunk_size", True),
    (load_document.main, "chunk_overlap", LibrarianRequest, "chunk_overlap", True),
]
REQUIRED: dict[type[BaseModel], dict[str, Any]] = {
    AgentRequest: {"question": "q"},
    DocumentRagRequest: {"query": "q"},
    GraphRagRequest: {"query": "q"},
    ExplainRequest: {"operation": "list-traces"},
    LibrarianRequest: {"operation": "add-document"},
    TriplesQueryRequest: {},
}


def _range(command: click.Command, name: str) -> tuple[click.IntRange, Any]:
    param = next(p for p in command.params if p.name == name)
    assert isinstance(param.type, click.IntRange)
    return param.type, param.default


@pytest.mark.parametrize(("command", "option", "model", "field", "same_default"), CASES)
def test_flag_and_field_agree(
    command: click.Command, option: str, model: type[BaseModel], field: str, same_default: bool
) -> None:
    accepted, default = _range(command, option)
    assert accepted.min is not None and accepted.max is not None
    base = REQUIRED[model]
    for edge in (accepted.min, accepted.max):
        assert getattr(model.model_validate({**base, field: edge}), field) == edge
    for outside in (accepted.min - 1, accepted.max + 1):
        with pytest.raises(ValidationError):
            model.model_validate({**base, field: outside})
    if same_default:
        assert default == getattr(model.model_validate(base), field)
