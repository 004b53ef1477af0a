"""tg-export-audit reads a document's provenance in pages (export_audit.exported_document):
a store that names the page it sent as the next one stops the export in one line, never a
loop without end."""

from __future__ import annotations

import asyncio
from typing import Any

import click
import pytest

from trustgraph_base.schema.explain import ExplainResponse
from trustgraph_cli import export_audit, responses


def test_a_page_that_names_itself_as_the_next_stops_the_export(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[str] = []

    async def same_page(client: Any, request: dict[str, Any], *_: Any) -> ExplainResponse:
        asked.append(request["cursor"])
        return ExplainResponse(export="<urn:s> <urn:p> <urn:o> .\n", cursor="k1")

    monkeypatch.setattr(responses, "call_explain", same_page)
    with pytest.raises(click.ClickException, match="page 2 again"):
        asyncio.run(export_audit.exported_document(None, "urn:d"))  # type: ignore[arg-type]
    assert asked == ["", "k1"]


def test_pages_are_joined_until_the_last(monkeypatch: pytest.MonkeyPatch) -> None:
    pages = {"": ("a\n", "k1"), "k1": ("b\n", "k2"), "k2": ("c\n", None)}

    async def paged(client: Any, request: dict[str, Any], *_: Any) -> ExplainResponse:
        text, cursor = pages[request["cursor"]]
        return ExplainResponse(export=text, cursor=cursor)

    monkeypatch.setattr(responses, "call_explain", paged)
    assert asyncio.run(export_audit.exported_document(None, "urn:d")) == "a\nb\nc\n"  # type: ignore[arg-type]
