"""DocumentRAG on a licence's header (issue 29, gold page cited): "When was version 3 of the
GNU General Public License published?" was answered with the licence's "may publish revised
and/or new versions…" (the answer cited another chunk), though the chunk with the header
"GNU GENERAL PUBLIC LICENSE / Version 3, 29 June 2007" was among the evidence: the version
line alone named no licence, and a sentence without the question's number spoke of any
version. A line of a title block is read as one with the title above it, and a sentence
that states none of the question's numbers does not answer it (llm/excerpts.py,
llm/support.py). Asked as a user does, with ``tg-invoke-document-rag``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.abstain import ABSTAINED, load_texts
from tests.support.processors import EVERY
from tests.support.stack import Stack

USER = "tess"  # a user of its own: the samples are not loaded
LICENCE = """                    TARN PUBLIC LICENCE
                       Version 4, 12 May 2011

 Everyone may copy and distribute verbatim copies of this licence document.

The Tarn Foundation may publish revised and new versions of the Tarn Public Licence from
time to time. Such new versions will be similar in spirit to the present version.

If a program names no version of the Tarn Public Licence, you may choose any version ever
published by the Tarn Foundation.
"""
NOTES = """Brede Mill

Ann Hale kept the books of the mill for thirty years. In 1841 she bought a second wheel.
"""


@pytest.mark.timeout(300)
async def test_a_version_line_answers_when_its_version_was_published(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path / "data") as stack:
        await load_texts(stack, USER, tmp_path, {"tarn.txt": LICENCE, "brede.txt": NOTES})
        asked = {
            q: await stack.cli("tg-invoke-document-rag", "--no-streaming", "-q", q, "-U", USER)
            for q in (
                "When was version 4 of the Tarn Public Licence published?",
                "When was version 9 of the Tarn Public Licence published?",
                "When did Ann Hale buy a second wheel?",
            )
        }
        for out in asked.values():
            assert out.code == 0, out.stderr
        v4, v9, wheel = (out.stdout for out in asked.values())
        assert "Version 4, 12 May 2011" in v4 and ABSTAINED not in v4, v4
        assert "may publish" not in v4, v4
        # no sentence speaks of version 9: not the one about any version
        assert "may publish" not in v9 and "any version" not in v9, v9
        assert "In 1841 she bought a second wheel." in wheel, wheel
