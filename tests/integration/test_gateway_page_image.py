"""POST /api/v1/page-image on the real pipeline: an unseen PDF's page drawn server-side with
a cited sentence's boxes tinted where the sentence is, turned pages included."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import aiohttp
import numpy as np

from tests.support.processors import RAG, SAMPLES
from tests.support.stack import Stack
from tests.support.unseen import GUTENBERG, load_unseen
from trustgraph_base.spans import locate
from trustgraph_flow.page_image import shown_box

USER = "erin"


def pixels(png: bytes) -> np.ndarray:
    """The RGB pixels of a PNG as the gateway writes it (one IDAT, filter 0 on every row)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    at, idat = 8, b""
    while at < len(png):
        (size,) = struct.unpack(">I", png[at : at + 4])
        if png[at + 4 : at + 8] == b"IDAT":
            idat += png[at + 8 : at + 8 + size]
        at += 12 + size
    rows = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, width * 3 + 1)
    assert not rows[:, 0].any()
    return rows[:, 1:].reshape(height, width, 3)


async def test_a_page_is_drawn_with_its_cited_sentence_highlighted(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path) as stack:
        doc, _, pages = await load_unseen(stack, tmp_path, "-U", USER)
        text_doc = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"), "-U", USER)
        url = stack.url + "api/v1/page-image"
        async with aiohttp.ClientSession() as http:
            for n in (1, 3):  # an upright page and one turned by /Rotate 90
                layout = pages[n - 1].layout
                start, length = locate(GUTENBERG, pages[n - 1].text) or (0, 0)
                body = {"page": f"{doc}/p{n}", "user": USER, "chars": [[start, length]], "scale": 1}
                async with http.post(url, json=body) as resp:
                    assert resp.status == 200 and resp.content_type == "image/png"
                    image = pixels(await resp.read())
                turned = n == 3
                high, wide = image.shape[:2]
                want = (595, 842) if turned else (842, 595)
                assert abs(high - want[0]) <= 1 and abs(wide - want[1]) <= 1
                size = (layout.width, layout.height)
                for rect in layout.span_boxes(start, length):  # each line tinted, there
                    left, top, right, bottom = shown_box(rect, layout.rotation, size, 1.0)
                    inside = image[top + 2 : bottom - 2, left + 2 : right - 2]
                    assert inside.size and (inside[:, :, 2] < 120).mean() > 0.5
                assert (image[:, :, 2] < 120).mean() < 0.1  # the rest of the page is not
                async with http.post(url, json={**body, "chars": []}) as resp:
                    plain = pixels(await resp.read())
                    assert (plain[:, :, 2] < 120).mean() < 0.02

            # errors are the gateway's JSON error answer (as every REST call's), never an image
            bad: list[tuple[dict[str, object], str, str]] = [
                ({"page": f"{doc}/p1", "chars": [[10**6, 5]]}, "bad-request", "past the end"),
                ({"page": f"{doc}/p9"}, "not-found", "has 5 pages: no page 9"),
                ({"page": "not a page"}, "bad-request", "page must be a page URI"),
                ({"page": f"{doc}/p1", "user": "someone-else"}, "not-found", "no document"),
            ]
            assert text_doc.code == 0, text_doc.stderr
            text_id = text_doc.stdout.strip().splitlines()[-1]
            bad.append(({"page": f"{text_id}/p1"}, "bad-request", "is not a page of a PDF"))
            for asked, kind, why in bad:
                async with http.post(url, json={"user": USER, **asked}) as resp:
                    assert resp.content_type == "application/json"
                    answer = await resp.json()
                    assert answer["error"]["type"] == kind and why in answer["error"]["message"], (
                        asked,
                        answer,
                    )
