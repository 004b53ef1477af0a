"""What the offline engine's answers claim, through ``offline.complete`` (issue 29): an
answer quoting one sentence of a quotation of two ends on no quotation mark it did not open."""

from __future__ import annotations

import json

from trustgraph_flow.llm import offline


def test_no_answer_ends_on_a_quotation_mark_it_did_not_open() -> None:
    chunks = ['The guide says: "Skarra has one road. The road runs to Port Ellis." It is short.']
    reply = offline.complete(
        "document-rag-answer",
        {"question": "Where does the road on Skarra run to?", "chunks": chunks},
        structured=True,
    )
    assert json.loads(reply)["answer"] == "The road runs to Port Ellis."
    assert json.loads(reply)["claims"] == [{"text": "The road runs to Port Ellis.", "cited": [1]}]
