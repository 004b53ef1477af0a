"""Replies of a runaway small model (issue 36 item 7): each reply's token bound follows its
chunk, a reply cut off by that bound keeps its whole items, repeats are dropped, and each
document's time budget is counted from its first chunk."""

from __future__ import annotations

import json

import pytest

from trustgraph_base.schema import TextCompletionResponse
from trustgraph_flow.document_budget import DocumentClock
from trustgraph_flow.extraction import (
    MAX_REPLY_TOKENS,
    ExtractedEdge,
    ExtractedEdges,
    check_edges,
    cut_off,
    extraction_request,
    reply_tokens,
    salvage,
)
from trustgraph_flow.partial_json import complete_items, unclosed

EDGE = {"s": "Paris", "p": "capital of", "o": "France", "o_literal": False}
BONN = {"s": "Bonn", "p": "was capital of", "o": "West Germany", "o_literal": False}


def test_a_replys_token_bound_follows_its_chunk() -> None:
    chunk = "Paris is the capital of France. " * 31  # ~1,000 characters, the default chunk
    assert len(chunk) == 992
    assert extraction_request(chunk).max_tokens == reply_tokens(chunk) == 1616
    assert reply_tokens("Paris is the capital of France.") == 174
    assert reply_tokens("x" * 10_000) == MAX_REPLY_TOKENS  # never above the old fixed cap


@pytest.mark.parametrize(
    ("text", "items"),
    [
        ('{"edges": [' + json.dumps(EDGE) + ', {"s": "Bo', [EDGE]),  # in a string
        ('{"edges": [' + json.dumps(EDGE) + ", " + json.dumps(BONN), [EDGE, BONN]),  # after one
        ('```json\n[{"s": "a", "p": "b", "o": "c"}, {"s"', [{"s": "a", "p": "b", "o": "c"}]),
        ('{"edges": [{"s": "a \\"quoted', []),  # an escaped quote is inside the string
        ('{"edges": [', []),
    ],
)
def test_a_cut_off_list_keeps_the_items_that_closed(text: str, items: list[object]) -> None:
    assert unclosed(text)
    assert complete_items(text, "edges") == items


def test_a_closed_reply_is_not_cut_off() -> None:
    whole = json.dumps({"edges": [EDGE, BONN]})
    assert not unclosed(whole) and not unclosed('"a [ in a string"')
    assert complete_items(whole, "edges") == [EDGE, BONN]
    assert complete_items('{"other": [1]}', "edges") == []  # not the edge list
    assert not cut_off(whole.replace("false", "nope"), None, 100)  # closed, wrong: asked again


def test_a_reply_that_used_every_token_is_cut_off_even_when_closed() -> None:
    used = TextCompletionResponse(response="{}", out_token=100)
    assert cut_off("{}", used, 100) and not cut_off("{}", used, 101)


def test_salvage_drops_repeats_and_items_that_do_not_validate() -> None:
    repeat = {"s": " paris", "p": "Capital  of", "o": "FRANCE", "o_literal": False}
    text = '{"edges": [' + ", ".join(
        json.dumps(e) for e in (EDGE, {"s": "", "p": "x", "o": "y"}, repeat, BONN, EDGE)
    )
    edges = check_edges(salvage(text + ', {"s"'))
    assert [(e.s, e.o) for e in edges] == [("Paris", "France"), ("Bonn", "West Germany")]


def test_a_degenerate_reply_of_one_repeated_edge_is_one_edge_not_a_runaway() -> None:
    reply = ExtractedEdges(edges=[ExtractedEdge.model_validate(EDGE)] * 300)
    assert len(check_edges(reply, max_edges=200)) == 1


class Ticks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_documents_budget_counts_from_its_first_chunk() -> None:
    ticks = Ticks()
    clock = DocumentClock(10.0, clock=ticks)
    a, b = ("u", "c", "doc-a"), ("u", "c", "doc-b")
    assert clock.arrived(a) == 10.0
    ticks.now += 6
    assert clock.arrived(a) == 4.0 and clock.arrived(b) == 10.0  # each its own clock
    ticks.now += 5
    assert clock.remaining(a) == -1.0  # used up: its later chunks are not extracted
    assert "document_budget" in clock.reason()
    ticks.now += 11  # no chunk of either for a whole budget: both ended, forgotten
    assert clock.arrived(a) == 10.0
    assert DocumentClock(0.0, 5.0, ticks).arrived(a) is None  # 0: no budget


def test_each_chunk_seen_adds_to_its_documents_budget() -> None:
    ticks = Ticks()
    clock = DocumentClock(10.0, 2.0, ticks)
    doc = ("u", "c", "big")
    assert clock.arrived(doc) == 12.0
    for _ in range(4):  # four more chunks at a sane pace: 1 s each against 2 s allowed
        ticks.now += 1
        clock.arrived(doc)
    assert clock.remaining(doc) == 10.0 + 5 * 2.0 - 4  # 16 s left
    ticks.now += 5  # one chunk that took far longer than its allowance (a runaway model)
    assert clock.arrived(doc) == 13.0  # 16 - 5 + 2
    assert clock.remaining(doc) == 13.0  # a second attempt of the same chunk adds nothing
