"""Names with '&' or '/', sizes, notices and sentence openings that name no subject, end to
end (issue 29, "junk edges no longer show up as evidence"; session 18's development pair,
libjpeg's structure.txt and dpkg's triggers.txt): a document written as they are is loaded
with tg-load-document; the graph tg-query-triples shows holds `AT&T → owned → U/WIN` and
`block → is → 8x8 group` (on the old code `AT → owned → U` and `block → is → 8`), the notice's
holder with his initial, and none of the junk the old code read there (`Qedit Project → modified → Copyright`: what
"It" stands for, "e.g", "little", "In IJG", "cope", the owner of a possessive)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.junk_edges import loaded_edges
from tests.support.processors import RAG
from tests.support.stack import Stack

DOCUMENT = """This file was part of the Zedit Group's software:
Copyright (C) 1991-2012, Thomas G. Lane, Guido Vollbeding.
It was modified by The Qedit Project to include only information relevant to Qedit.

Zedit is owned by AT&T. AT&T owned U/WIN.
A "component" means a color channel, e.g., Red or Luminance.
A "block" is an 8x8 group of samples.
Lossless Zedit shares little or no code with lossy Zedit.
In IJG implementations prior to v5, overall control was provided by pipeline modules.
The Zedit marker reader is designed to cope with suspension at an arbitrary point.
The Zedit library's memory manager controls allocation, and it manages large arrays.
It is allowed for the functionality relating to a trigger to fail.
Short will be used if samples wider than 8 bits are to be supported.

Package declarations regarding triggers
---------------------------------------

See the manual for these.
"""
# labels the old code gave from the sentences above (as subject or object)
JUNK = {"e.g", "little", "in ijg", "cope", "large", "u", "at", "8", "short"}
JUNK |= {"package", "regarding triggers", "functionality relating"}
pytestmark = pytest.mark.timeout(300)


async def test_names_sizes_and_openings_give_their_edges_and_no_junk(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    text = tmp_path / "zedit-structure.txt"
    text.write_text(DOCUMENT)
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path / "data") as stack:
        edges = await loaded_edges(stack, text)
        assert ("at&t", "owned", "u/win") in edges, edges
        assert ("block", "is", "8x8 group") in edges, edges
        assert ("thomas g. lane", "holds", "copyright") in edges, edges
        named = {s for s, _, _ in edges} | {o for _, _, o in edges}
        assert not named & JUNK, named & JUNK
        assert not any(s == "qedit project" for s, _, _ in edges), edges  # "It": not Copyright
