"""What a sentence of an excerpt is read with, for the offline engine's DocumentRAG answer
(``document-rag-answer`` through ``offline.complete``): a line of a title block as one
with the title above it, and a sentence that opens with a time or a place before its pronoun or
"the …" with the sentences before it."""

from __future__ import annotations

import json
from typing import Any

from trustgraph_flow.llm import offline
from trustgraph_flow.llm.excerpts import anaphoric, excerpt_pieces

LICENCE = (
    "                    TARN PUBLIC LICENCE\n"
    "                       Version 4, 12 May 2011\n\n"
    " Everyone may copy this licence document.\n\n"
    "The Tarn Foundation may publish new versions of the Tarn Public Licence from time to "
    "time. If a program names no version of the Tarn Public Licence, any version ever "
    "published may be chosen.\n"
)
NOTES = (
    "The Brede Mill\n\n"
    "The Brede Mill stands on the Ouse, below the village of Brede. It was built in 1790.\n\n"
    "Ann Hale kept the books. In 1841 she bought a second wheel.\n\n"
    "The mill was closed during the war and its stones were sold. "
    "Today the building belongs to the Weald Trust, and the yard is used by a school.\n"
)


def answer(question: str, chunks: list[str]) -> dict[str, Any]:
    reply = offline.complete(
        "document-rag-answer", {"question": question, "chunks": chunks}, structured=True
    )
    return dict(json.loads(reply))


def test_a_line_of_a_title_block_is_read_as_one_with_the_title() -> None:
    reply = answer("When was version 4 of the Tarn Public Licence published?", [LICENCE])
    assert reply["answer"] == "Version 4, 12 May 2011"
    assert reply["cited"] == [1]
    headings = {p.text: p.heading for p in excerpt_pieces([LICENCE])[0]}
    assert headings["Version 4, 12 May 2011"] == "TARN PUBLIC LICENCE"
    assert headings["TARN PUBLIC LICENCE"] == ""
    # a line after a blank line is no part of the title block, nor a list's items
    assert headings["Everyone may copy this licence document."] == ""
    listed = excerpt_pieces(["Exports\n- wool\n- tin\n"])[0]
    assert [(p.text, p.heading) for p in listed] == [("Exports", ""), ("- wool", ""), ("- tin", "")]


def test_a_sentence_opening_with_a_time_leans_on_the_ones_before() -> None:
    assert anaphoric("In 1841 she bought a second wheel.")
    assert anaphoric("Today the building belongs to the Weald Trust.")
    assert anaphoric("For forty years it was run by Ann Hale.")
    assert not anaphoric("In 1841 Ann Hale bought a second wheel.")
    assert not anaphoric("Today Ann Hale keeps the books.")
    # "such a" thing is the one the sentence before describes; "such as" lists its own
    assert anaphoric("A public wiki is an example of such a server.")
    assert not anaphoric("Sed runs on systems such as Linux.")
    reply = answer("When did Ann Hale buy a second wheel?", [NOTES])
    assert reply["answer"] == "In 1841 she bought a second wheel."


def test_a_sentence_an_overlap_cut_is_said_once() -> None:
    """Chunks overlap, so the next one may start mid-sentence: that end of a sentence already
    read is no second claim (newuser5's Node.js README answer said it twice)."""
    first = (
        "Security\n\nFor information on reporting security vulnerabilities in Node.js, "
        "see SECURITY.md. The project answers within a week."
    )
    second = (
        "information on reporting security vulnerabilities in Node.js, see SECURITY.md. "
        "The project answers within a week.\n\nReleases come every six months."
    )
    texts = [p.text for p in excerpt_pieces([first, second])[0]]
    assert texts.count("The project answers within a week.") == 1
    assert not [t for t in texts if t.startswith("information on")], texts
    assert "Releases come every six months." in texts
    reply = answer("How do I report a security bug in Node.js?", [first, second])
    assert reply["answer"].count("vulnerabilities in Node.js") == 1, reply
    # a short first sentence is its own, even where it ends a longer one
    assert "Yes." in [p.text for p in excerpt_pieces(["He said Yes.", "Yes. It is."])[0]]
