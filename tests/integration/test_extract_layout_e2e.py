"""A manual's layout and its misread sentences are not read as facts, end to end (issue 29, "junk
edges no longer show up as evidence"): a document laid out as Debian's bzip2 manual and sed FAQ
are (a contents line, section headings, options, a usage line, a table, code, a heading over a
link, and sentences once misread: a count as subject, "like", a participle after an adverb, a
plural noun before "of", a verb's clause), and a protocol spec laid out as the XDMCP one is
(problems and solutions as headline fragments, a state table of arrows and labels, a list of
names before a plural noun), and a style guide (a title underlined with tildes, which opens no
block, a fenced block of code, imperatives, a modal's verb after 'probably', a perfect's
participle, a means taken for an agent, an act after 'is to'), are loaded with tg-load-document;
the graph tg-query-triples shows holds the edges of their prose and none of their layout, and
GraphRAG asked about a heading's or a headline's words cites no such edge."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.junk_edges import check_never_read_nor_cited
from tests.support.processors import RAG
from tests.support.stack import Stack

MANUAL = """Zedit manual

3.1.3. Utility functions summary . . . . . . . . . . . . . . . . . . . . . 9
3.4.8. Handling embedded compressed data streams . . . . . . . . . . . . 24

3.1.3. Utility functions summary
Zedit reads its input from files. Zedit was written by Lee Hale in 1974.
-k --keep
Keep (don't delete) input files during compression or decompression.
zedit [ -cdfk ] [ filenames ... ]

   Getting started with Zedit
       http://www.example.org/zedit.html

   \\dDDD   decimal char, where DDD are 1-3 decimal digits
   \\oOOO   octal char, where OOO are 1-3 octal digits

     # Comments supported by Zedit or Qedit.

   Four hyphens separate the two sections. Zedit works like this:

Limits are actually determined by the hardware. DOS versions of Zedit require quotes.
"t" means the transformation is obtained by zedit_set_t().
"""
# labels the layout lines (and "Four", "like") gave on the code before
LAYOUT = {"utility", "handling", "keep input", "getting", "ddd", "ooo", "comments", "four", "like"}
LAYOUT |= {"limits", "actually determined", "dos", "t", "transformation"}
SPEC = """Zlink protocol

Zlink sends a Hello packet to each host. The Session ID is a 32-bit number.
  Problems/Solutions:
    Problem:
                      Hello not received by the host.
                      Indication:
                                        Zlink timeout waiting for response.
    Problem:
                      Message received out of order by host.
                      Solution:
                                        Failed message is sent including a reason.
    The Hostname and Status fields as in the Hello packet.

Client:

                          User-requested connect to one host -> query

start:                    User-requested connect to some host -> broadcast

                          Add new host to the host list shown to the user
update-host-list:
                          -> collect-query
"""
# labels the fragments gave on the code before (`Hello → not received → host`, …)
JUNK = {"user-requested", "add new", "message", "order", "hostname", "status", "including"}
GUIDE = """Zedit style guide
~~~~~~~~~~~~~~~~~

Zedit reads its input from files.

```sh
Zedit writes stdout
Hale built the mill
```

Read coded data from the data source module.
Indicate bit values via shifts.
The Zedit case will probably result in halos.
Tests have shown that Zedit is fast.
Hand editing is achieved by copying zedit.conf to the home directory.
Copyright Copyright notice
Another alternative is to get an external program.
The Zedit board can remove old members or provide them with a title.
The Zedit board seeks to resolve issues.
Qedit has to have full control from the very start.
"""
# labels its code and misread verbs gave on the code before (`Read → coded → data`, …)
MISREAD = {"stdout", "hale", "mill", "read", "indicate", "result", "shown", "copyright"}
MISREAD |= {"copying zedit.conf", "data", "get", "provide", "resolve", "full control"}
pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize(
    ("text", "prose", "junk", "question"),
    [
        (MANUAL, {"zedit", "input", "lee hale"}, LAYOUT, "What are the utility functions?"),
        (SPEC, {"zlink", "hello", "session id"}, JUNK, "Which message is received out of order?"),
        (GUIDE, {"zedit", "input"}, MISREAD, "What did Hale build?"),
    ],
    ids=["manual", "state-machine", "guide"],
)
async def test_layout_and_fragments_give_no_edge_and_are_never_cited(
    pulsar_url: str,
    prefix: str,
    tmp_path: Path,
    text: str,
    prose: set[str],
    junk: set[str],
    question: str,
) -> None:
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path / "data") as stack:
        await check_never_read_nor_cited(
            stack, tmp_path / "manual.txt", text, prose, junk, question
        )
