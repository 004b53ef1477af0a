"""tg-show-evidence end to end: an unseen PDF loaded through the gateway and the real
pipeline, a question asked, and each claim of the answer followed to the sentence on the
page that supports it (text and JSON), checked against the PDF itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.pdf_truth import on_sentence
from tests.support.processors import RAG, SAMPLES
from tests.support.stack import Stack
from tests.support.unseen import load_unseen

USER = "dora"


def places(report: list[Any]) -> list[dict[str, Any]]:
    return [
        place
        for answer in report
        for claim in answer["claims"]
        for item in claim["evidence"]
        for place in item["places"]
    ]


async def test_each_claim_leads_to_its_sentence_on_the_page(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path) as stack:
        scope = ("-U", USER)
        _, truth, pages = await load_unseen(stack, tmp_path, *scope)
        for command, question, word in (
            ("tg-invoke-graph-rag", "Where was Marie Curie born?", "Warsaw"),
            ("tg-invoke-document-rag", "Where was Marie Curie born?", "Warsaw"),
        ):
            asked = await stack.cli(command, "--no-streaming", "-q", question, *scope)
            assert asked.code == 0, asked.stderr
            assert word in asked.stdout
            trace = asked.stderr.strip().splitlines()[-1].removeprefix("trace: ")

            shown = await stack.cli("tg-show-evidence", trace, "--format", "json", *scope)
            assert shown.code == 0, shown.stderr
            report = json.loads(shown.stdout)
            (answer,) = report
            assert answer["trace"] == trace and answer["claims"]
            claim = next(c for c in answer["claims"] if word in c["text"])
            assert claim["evidence"], "the claim cites its evidence"
            found = [p for item in claim["evidence"] for p in item["places"] if p["located"]]
            assert found
            for place in found:  # the quote is exactly there, on the page and on its lines
                n, start, length = place["page_number"], place["char_offset"], place["char_length"]
                page = pages[n - 1]
                assert page.text[start : start + length] == place["quote"]
                boxes = list(page.layout.boxes[start : start + length])
                # an edge's sentence, or the claim's sentence in its chunk: on the page, on its lines
                assert any(on_sentence(s, place["quote"], boxes) for s in truth if s.page == n)
            text = await stack.cli("tg-show-evidence", trace, *scope)
            assert text.code == 0, text.stderr
            first = found[0]
            where = f"page {first['page_number']}, chars {first['char_offset']}–"
            assert 'Claim 1: "' in text.stdout and where in text.stdout
            assert '"unseen.pdf"' in text.stdout

            edges = command == "tg-invoke-graph-rag"
            await answers_citing_the_sentence(stack, trace, found[0], pages, edges)

        missing = await stack.cli("tg-show-evidence", "no-such-trace", *scope)
        assert missing.code == 1 and "no trace 'no-such-trace'" in missing.stderr
        assert "Traceback" not in missing.stderr


async def usage(stack: Stack, *args: str) -> Any:
    shown = await stack.cli("tg-show-source-usage", *args, "--format", "json", "-U", USER)
    assert shown.code == 0, shown.stderr
    return json.loads(shown.stdout)


async def answers_citing_the_sentence(
    stack: Stack, trace: str, place: dict[str, Any], pages: list[Any], edges: bool
) -> None:
    """Reverse lineage by region: the sentence's characters find the answer; another
    sentence of the same page does not find it citing anything there — for an edge, through
    the sentence that states it; for a DocumentRAG chunk, through the sentence of the answer
    found in it (a chunk it only retrieved is still found by any of its characters, marked
    not cited); bad ranges are refused with a reason."""
    page, start, length = place["page"], place["char_offset"], place["char_length"]
    here = await usage(stack, page, "--chars", f"{start}-{start + length}")
    assert trace in [t["trace"]["id"] for t in here["traces"]]
    assert here["source"] == f"{page}#chars={start}-{start + length}"
    (used,) = [t for t in here["traces"] if t["trace"]["id"] == trace]
    assert any(p["cited"] for p in used["paths"])
    text = pages[place["page_number"] - 1].text
    other = text.index("Mount Fuji")  # a sentence the answer does not rest on
    elsewhere = await usage(stack, page, "--chars", f"{other}-{other + 10}")
    there = [p for t in elsewhere["traces"] if t["trace"]["id"] == trace for p in t["paths"]]
    assert not any(p["cited"] for p in there), there
    if edges:
        assert not there
    whole_page = await usage(stack, page)
    assert trace in [t["trace"]["id"] for t in whole_page["traces"]]

    past = await stack.cli("tg-show-source-usage", page, "--chars", "90000-90010", "-U", USER)
    assert past.code == 1 and "past the end" in past.stderr and "Traceback" not in past.stderr
    blank = page.rsplit("/", 1)[0] + "/p5"  # the PDF's page with no text layer says so
    scanned = await stack.cli("tg-show-source-usage", blank, "--chars", "0-5", "-U", USER)
    assert scanned.code == 1 and "has no text layer" in scanned.stderr, scanned
    chunk = await stack.cli("tg-show-source-usage", place["chunk"], "--chars", "0-5", "-U", USER)
    assert chunk.code == 1 and "needs a page" in chunk.stderr
    reversed_ = await stack.cli("tg-show-source-usage", page, "--chars", "9-3", "-U", USER)
    assert reversed_.code == 2 and "START must be below END" in reversed_.stderr


async def test_a_text_documents_evidence_is_given_by_its_lines_and_columns(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    text = (SAMPLES / "capitals.txt").read_text(encoding="utf-8-sig")
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path) as stack:
        loaded = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"), "-U", USER)
        assert loaded.code == 0, loaded.stderr
        asked = await stack.cli(
            "tg-invoke-graph-rag",
            "--no-streaming",
            "-q",
            "What is the capital of France?",
            "-U",
            USER,
        )
        assert asked.code == 0, asked.stderr
        trace = asked.stderr.strip().splitlines()[-1].removeprefix("trace: ")
        shown = await stack.cli("tg-show-evidence", trace, "--format", "json", "-U", USER)
        assert shown.code == 0, shown.stderr
        located = [p for p in places(json.loads(shown.stdout)) if p["located"]]
        assert located
        for place in located:
            start, length = place["char_offset"], place["char_length"]
            assert place["page"] is None and text[start : start + length] == place["quote"]
            line = text.count("\n", 0, start) + 1
            end = start + length - 1
            assert place["lines"] == [line, text.count("\n", 0, end) + 1]
            col = start - (text.rfind("\n", 0, start) + 1) + 1
            assert place["columns"] == [col, end - (text.rfind("\n", 0, end) + 1) + 1]
        listed = await stack.cli("tg-show-evidence", trace, "-U", USER)
        first = located[0]
        (line, last), (col, end) = first["lines"], first["columns"]
        assert line == last  # one sentence of capitals.txt: one line
        where = f"line {line}, cols {col}–{end}, chars {first['char_offset']}–"
        assert where in listed.stdout
        # the trace's provenance gives the edge's sentence by its line and columns too
        tree = await stack.cli("tg-show-explain-trace", trace, "--show-provenance", "-U", USER)
        assert tree.code == 0, tree.stderr
        assert f"({where}" in tree.stdout, tree.stdout


async def test_a_manual_formatted_for_a_terminal_is_read_as_it_shows(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    # As /usr/share/doc's formatted manuals are: bold and underline as escape sequences and
    # as overstrikes. Their visible part ("[4m") was read as words and cited as the quote.
    # And as man breaks a word at a line's end (groff's HYPHEN, U+2010): "capi‐ tal" was
    # read as two words; it is read whole, on the line where it ends.
    shown = (
        "Paris is the capital of France.\n\nBerlin is the capital of Germany.\n\n"
        "       The Meseta is a high plateau in the middle of the land. Madrid is the \n"
        "       capital of Spain and its largest city.\n"
    )
    manual = tmp_path / "manual.txt"
    manual.write_bytes(
        b"\x1b[1mParis\x1b[0m is the capital of \x1b[4mFrance\x1b[24m.\n\n"
        + b"".join(bytes([c, 8, c]) for c in b"Berlin")
        + b" is the capital of _\x08G_\x08e_\x08r_\x08m_\x08a_\x08n_\x08y.\n\n"
        + "       The Meseta is a high plateau in the middle of the land. Madrid is the capi\u2010\n".encode()
        + b"       tal of Spain and its largest city.\n"
    )
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path) as stack:
        loaded = await stack.cli("tg-load-document", str(manual), "-U", USER)
        assert loaded.code == 0, loaded.stderr
        questions = (("capital of France?", 1, 1), ("capital of Germany?", 3, 3))
        for question, line, last in (*questions, ("capital of Spain?", 5, 6)):
            asked = await stack.cli(
                "tg-invoke-graph-rag", "--no-streaming", "-q", f"What is the {question}", "-U", USER
            )
            assert asked.code == 0, asked.stderr
            assert f"is the {question[:-1]}" in asked.stdout, asked.stdout  # 'capital', whole
            trace = asked.stderr.strip().splitlines()[-1].removeprefix("trace: ")
            evidence = await stack.cli("tg-show-evidence", trace, "--format", "json", "-U", USER)
            assert evidence.code == 0, evidence.stderr
            located = [p for p in places(json.loads(evidence.stdout)) if p["located"]]
            assert located, evidence.stdout
            for place in located:
                start, length = place["char_offset"], place["char_length"]
                assert shown[start : start + length] == place["quote"]
                assert place["lines"] == [line, last], json.dumps(place)
