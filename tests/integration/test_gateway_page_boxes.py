"""GET /api/v1/page-image and POST /api/v1/page-boxes on the real pipeline: the unmarked page
sent once (ETag, 304 after), and a cited sentence's boxes in points on the page as shown,
where the generator wrote the sentence's lines, turned pages included; bad input refused."""

from __future__ import annotations

from pathlib import Path

import aiohttp

from bench.pdf_truth import FONT_SIZE
from tests.integration.test_gateway_page_image import pixels
from tests.support.processors import RAG, SAMPLES
from tests.support.stack import Stack
from tests.support.unseen import GUTENBERG, load_unseen
from trustgraph_base.layout import shown_rect
from trustgraph_base.spans import locate

USER = "erin"


async def test_the_page_is_sent_once_and_the_sentence_boxes_are_where_it_was_written(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path) as stack:
        doc, truth, pages = await load_unseen(stack, tmp_path, "-U", USER)
        text_doc = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"), "-U", USER)
        assert text_doc.code == 0, text_doc.stderr
        text_id = text_doc.stdout.strip().splitlines()[-1]
        image_url, boxes_url = stack.url + "api/v1/page-image", stack.url + "api/v1/page-boxes"
        async with aiohttp.ClientSession() as http:
            for n in (1, 3):  # an upright page and one turned by /Rotate 90
                query = {"page": f"{doc}/p{n}", "user": USER, "scale": "1"}
                async with http.get(image_url, params=query) as resp:
                    assert resp.status == 200 and resp.content_type == "image/png"
                    assert resp.headers["Cache-Control"] == "private, no-cache"
                    tag = resp.headers["ETag"]
                    plain = pixels(await resp.read())
                assert (plain[:, :, 2] < 120).mean() < 0.02  # nothing tinted
                headers = {"If-None-Match": tag}
                async with http.get(image_url, params=query, headers=headers) as resp:
                    assert resp.status == 304 and not await resp.read()
                    assert resp.headers["ETag"] == tag

                start, length = locate(GUTENBERG, pages[n - 1].text) or (0, 0)
                body = {"page": f"{doc}/p{n}", "user": USER, "chars": [[start, length]]}
                async with http.post(boxes_url, json=body) as resp:
                    answer = await resp.json()
                high, wide = plain.shape[:2]
                assert abs(answer["width"] - wide) <= 1 and abs(answer["height"] - high) <= 1
                assert answer["text_layer"] is True and len(answer["boxes"]) == 1
                # each box is one of the sentence's lines as written (turned as shown)
                layout = pages[n - 1].layout
                size = (layout.width, layout.height)
                (sentence,) = [s for s in truth if s.page == n and s.text == GUTENBERG]
                written = [
                    shown_rect(
                        (line.x0, line.baseline, line.x1, line.baseline + 0.5 * FONT_SIZE),
                        layout.rotation,
                        size,
                    )
                    for line in sentence.lines
                ]
                got = answer["boxes"][0]
                assert len(got) == len(written) >= 2
                for box, line in zip(got, written, strict=True):
                    # the box holds the line's written extent (a glyph's ink within its advance)
                    overlap_w = min(box[2], line[2]) - max(box[0], line[0])
                    overlap_h = min(box[3], line[3]) - max(box[1], line[1])
                    assert overlap_w > 0 and overlap_h > 0, (box, line)
                    long_side = max(line[2] - line[0], line[3] - line[1])
                    assert max(overlap_w, overlap_h) > 0.95 * long_side, (box, line)
                    left, top, right, bottom = (int(v) for v in box)
                    ink = plain[top:bottom, left:right]
                    assert (ink[:, :, 0] < 120).mean() > 0.05  # the words are drawn there

            # a page with no text layer: says so, nothing to mark
            blank = {"page": f"{doc}/p5", "user": USER, "chars": []}
            async with http.post(boxes_url, json=blank) as resp:
                answer = await resp.json()
                assert answer["text_layer"] is False and answer["boxes"] == []

            bad: list[tuple[str, dict[str, object], str, str]] = [
                (
                    "post",
                    {"page": f"{doc}/p1", "chars": [[10**6, 5]]},
                    "bad-request",
                    "past the end",
                ),
                ("post", {"page": f"{doc}/p5", "chars": [[0, 5]]}, "bad-request", "past the end"),
                ("post", {"page": f"{doc}/p1", "chars": "0-5"}, "bad-request", "chars must be"),
                ("post", {"page": f"{doc}/p9"}, "not-found", "has 5 pages: no page 9"),
                ("post", {"page": f"{text_id}/p1"}, "bad-request", "is not a page of a PDF"),
                ("get", {"page": f"{doc}/p9"}, "not-found", "has 5 pages: no page 9"),
                ("get", {"page": "not a page"}, "bad-request", "page must be a page URI"),
                ("get", {"page": f"{doc}/p1", "scale": "huge"}, "bad-request", "scale must be"),
                ("get", {"page": f"{doc}/p1", "user": "someone-else"}, "not-found", "no document"),
            ]
            for method, asked, kind, why in bad:
                if method == "post":
                    call = http.post(boxes_url, json={"user": USER, **asked})
                else:
                    params = {"user": USER, **{k: str(v) for k, v in asked.items()}}
                    call = http.get(image_url, params=params)
                async with call as resp:
                    assert resp.content_type == "application/json", asked
                    answer = await resp.json()
                    assert answer["error"]["type"] == kind, (asked, answer)
                    assert why in answer["error"]["message"], (asked, answer)
