"""The offline engine on a document written for this test, as a user asks it: facts in the
passive voice and in appositions answered, no junk edge (an adverb, a pronoun, a lone
participle, an object repeating its subject) extracted or cited, DocumentRAG's answer the one
sentence that says it, and an out-of-corpus question answered with "no relevant information"
by both commands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.processors import RAG
from tests.support.stack import Stack

NOTES = """# Notes on the Hale valley

The Marrowby site now belongs to the Trust. Everyone is permitted to visit it.
Chlorine is added. Casimir Rook designed Rook.

The Hale Viaduct was designed by Casimir Rook in 1871. Orla Quist, a chemist from Bergen,
founded the Fenwick Works. The works are three miles from the viaduct.
Of the Hale Viaduct, much was paid for by gifts from the Lorne family, who farmed below it.
"""
JUNK = {"now", "it", "added", "everyone", "rook", "there"}
ABSTAINED = ("no relevant information", "do not say", "does not say")
# One user's session of 17 commands, each its own process: ~90 s at load 17 (CI runs suites
# side by side), past the suite's 120 s default.
pytestmark = pytest.mark.timeout(300)


async def _ask(stack: Stack, command: str, question: str) -> tuple[str, dict[str, Any]]:
    done = await stack.cli(command, "--no-streaming", "-q", question)
    assert done.code == 0, done.stderr
    trace = done.stderr.strip().splitlines()[-1].removeprefix("trace: ")
    shown = await stack.cli("tg-show-explain-trace", trace, "--show-provenance", "--format", "json")
    assert shown.code == 0, shown.stderr
    return done.stdout.strip(), json.loads(shown.stdout)


def _label(edge: dict[str, Any], key: str) -> str:
    """A term's label, or a literal's value."""
    return str(edge[f"{key}_label"] or edge[key].get("v") or edge[key].get("i")).lower()


def _junk(edge: dict[str, Any]) -> bool:
    s, p, o = (_label(edge, k) for k in "spo")
    return (
        o in JUNK
        or s in JUNK
        or p.split()[0] in {"site", "now"}
        or set(o.split()) <= set(s.split())
    )


async def test_a_written_document_is_answered_without_junk(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    notes = tmp_path / "hale-notes.md"
    notes.write_text(NOTES)
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path / "data") as stack:
        loaded = await stack.cli("tg-load-document", str(notes))
        assert loaded.code == 0, loaded.stderr

        answer, view = await _ask(stack, "tg-invoke-graph-rag", "Who designed the Hale Viaduct?")
        # the sentence the edge was read from, once (two edges were read from it)
        assert answer == "The Hale Viaduct was designed by Casimir Rook in 1871.", answer
        cited = [e for e in view["edges"] if e["cited"]]
        assert cited and not any(_junk(e) for e in view["edges"]), view["edges"]
        assert all(e["sources"][0]["spans"][0]["located"] for e in cited)  # its sentence, placed

        # no edge says who paid (the extractor reads no such sentence): the sentence of the
        # chunk an edge about the viaduct was read from does, cited as that edge and checked
        # against its chunk
        answer, view = await _ask(stack, "tg-invoke-graph-rag", "Who paid for the Hale Viaduct?")
        assert "the Lorne family" in answer, answer
        assert not any("Lorne" in _label(e, k) for e in view["edges"] for k in "spo")
        assert [c["verdict"] for c in view["claims"]] == ["supported"], view["claims"]
        (cited,) = [e for e in view["edges"] if e["cited"]]
        assert cited["s_label"] == "Casimir Rook", view
        # the sentence is placed in that chunk (tg:ClaimSpan): its characters find the answer
        doc, at = cited["sources"][0]["document"], NOTES.index("Of the Hale Viaduct")
        found = await stack.cli(
            "tg-show-source-usage", doc, "--chars", f"{at}-{at + 30}", "--format", "json"
        )
        assert found.code == 0, found.stderr
        paths = [p for t in json.loads(found.stdout)["traces"] for p in t["paths"]]
        assert [p["entity"] for p in paths if p["trace"] == view["id"]] == [cited["uri"]], paths
        # and tg-show-evidence gives the claim's own sentence as a place of the edge it cites
        shown = await stack.cli("tg-show-evidence", view["id"], "--format", "json")
        assert shown.code == 0, shown.stderr
        ((claim,),) = [a["claims"] for a in json.loads(shown.stdout)]
        places = [p for item in claim["evidence"] for p in item["places"]]
        assert places[0]["quote"] == answer and places[0]["char_offset"] == at, places
        assert places[0]["lines"] == [8, 8], places  # on its line of the document
        assert any(p["quote"].startswith("The Hale Viaduct was designed") for p in places)

        answer, view = await _ask(stack, "tg-invoke-graph-rag", "What is the Marrowby site now?")
        assert not any(_junk(e) for e in view["edges"] if e["cited"]), view["edges"]

        answer, _ = await _ask(stack, "tg-invoke-graph-rag", "What is Orla Quist?")
        assert "chemist" in answer, answer  # the apposition

        answer, view = await _ask(stack, "tg-invoke-document-rag", "Who designed the Hale Viaduct?")
        assert answer == "The Hale Viaduct was designed by Casimir Rook in 1871.", answer
        assert [c["text"] for c in view["claims"]] == [answer]  # one sentence, not padded

        for command in ("tg-invoke-graph-rag", "tg-invoke-document-rag"):
            answer, view = await _ask(stack, command, "What is the boiling point of mercury?")
            assert any(marker in answer.lower() for marker in ABSTAINED), (command, answer)
            assert not [e for e in view["edges"] + view["chunks"] if e["cited"]], (command, view)
