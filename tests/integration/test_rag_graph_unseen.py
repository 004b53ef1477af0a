"""GraphRAG on the shapes of documents a new user brings (issue 29, session 19's development
set: a paper, a Markdown README, a FAQ): a sentence whose names carry a citation key ("Ji
and Killian [JK02] provided…") or a Markdown link ("dual-licensed under [BSD](LICENSE)"), or
that opens with a program's name in lower case ("zlib is not subject to…"), gave no edge, so
its chunk was never reached and GraphRAG said the documents do not say. The extractor now
reads all three. Session 22's shapes ride on the same stack: a release's date ("frobnik-2.7.1
was released on March 4, 2021", a versioned name and a date gave no edge) and a guide's
title page, whose byline ("by Ann P. Carr") is the only place that says who wrote it. This is
the user's path, end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.abstain import check_answers, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "ines"  # a user of its own: the samples are not loaded
PAPER = """Related work

Checksums have been studied for a long time. In 1993, Orrin Black [Bla93] published a method
that reads data by words. In 2002, Mara Jiang and Tomas Kell [JK02] provided a detailed
analysis of a nearly identical scheme.
"""
FAQ = """Frequently Asked Questions about quillo

43. Is quillo subject to export controls?

    quillo is not subject to export controls, and so is classified as EAR99.
"""
NOTES = "Ada Lind wrote the first survey of checksums.\n"  # an edge, so the graph is not empty
RELEASE = "\nfrobnik-2.7.1 was released on March 4, 2021.  See the web page for news.\n"
GUIDE = "A Short Guide to Knot Tying\nby Ann P. Carr\n\nKnots hold ropes together.\n"
README = """# quillo

A small archiver for the command line, written in C.

## License

Quillo is dual-licensed under [BSD](LICENSE) and [Apache-2.0](https://www.apache.org/licenses/LICENSE-2.0).
"""


@pytest.mark.timeout(300)
async def test_citation_keys_and_links_do_not_hide_a_sentence(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        texts = {"related.txt": PAPER, "quillo.md": README, "faq.txt": FAQ, "notes.txt": NOTES}
        texts |= {"frobnik.txt": RELEASE, "guide.txt": GUIDE}
        await load_texts(stack, USER, tmp_path, texts)
        asked = {
            "Who published a method that reads data by words?": "Orrin Black",
            "Who provided a detailed analysis of the scheme?": "Mara Jiang",
            "Under which licenses is Quillo distributed?": "BSD",
            "How is quillo classified for export controls?": "EAR99",
            "When was frobnik-2.7.1 released?": "March 4, 2021",
            "Who wrote the guide to knot tying?": "Ann P. Carr",
        }
        await check_answers(stack, USER, "tg-invoke-graph-rag", asked)
