"""Text fitting, tables, JSON output and terminal detection."""

from __future__ import annotations

import io
import itertools
import json
import random

import pytest

from tests.golden import samples
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm
from trustgraph_base.schema.explain import StageMetrics, TraceView
from trustgraph_base.wire import from_json
from trustgraph_cli.render.jsonout import StreamedView, dumps, sources_not_requested, view_json
from trustgraph_cli.render.style import Style
from trustgraph_cli.render.table import render_table
from trustgraph_cli.render.text import fit, preview, short_time, term_text, truncate, wrap_field


class Stream(io.StringIO):
    def __init__(self, tty: bool, encoding: str = "utf-8") -> None:
        super().__init__()
        self._tty, self._encoding = tty, encoding

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


def test_truncate_names_the_full_length() -> None:
    assert truncate("abcdefghij", 4) == "abcd… [truncated, 10 chars]"
    assert truncate("abcdefghij", 4, "...") == "abcd... [truncated, 10 chars]"
    assert truncate("short", 10) == "short" and truncate("x" * 50, 0) == "x" * 50


def test_preview_and_fit_are_one_line() -> None:
    assert preview("The quick\nbrown  fox", 9) == '"The quick..." [truncated]'
    assert preview("tiny", 200) == '"tiny"'
    assert fit("a long question here", 10) == "a long qu…"
    assert fit("line one\nline two", 40) == "line one line two"


def test_wrap_keeps_paragraphs_and_hangs_continuations() -> None:
    lines = wrap_field("Answer", "one two three four five six seven\n\nnext", 30)
    assert lines == ["Answer: one two three four", "        five six seven", "", "        next"]
    assert all(len(line) <= 30 for line in lines)


def test_wrap_fills_each_line_greedily_and_keeps_every_word() -> None:
    rnd = random.Random(7)
    for _ in range(2_000):
        words = ["x" * rnd.randint(1, 14) for _ in range(rnd.randint(1, 40))]
        label, width = rnd.choice(["", "Thought", "Observation"]), rnd.randint(34, 90)
        lines = wrap_field(
            label, "  ".join(words) if rnd.random() < 0.2 else " ".join(words), width
        )
        hang = len(f"{label}: ") if label else 0
        assert lines[0].startswith(f"{label}: " if label else "")
        assert " ".join(line[hang:] for line in lines).split() == words
        assert all(len(line) <= width for line in lines)
        for line, after in itertools.pairwise(lines):
            assert after[:hang].strip() == ""
            assert len(line) + 1 + len(after.split()[0]) > width  # it did not fit before


def test_terms_as_text() -> None:
    assert term_text(IriTerm(i="urn:x")) == "urn:x"
    assert term_text(LiteralTerm(v="42")) == '"42"'
    assert term_text({"t": "b", "d": "n1"}) == "_:n1"
    quoted = {
        "t": "t",
        "tr": {
            "s": {"t": "i", "i": "urn:s"},
            "p": {"t": "i", "i": "urn:p"},
            "o": {"t": "l", "v": "o"},
        },
    }
    assert term_text(quoted) == '<< urn:s urn:p "o" >>'


def test_short_time() -> None:
    assert short_time("2026-01-02T03:04:05.123Z") == "2026-01-02 03:04:05Z"
    assert short_time("2026-01-02T03:04:05+02:00") == "2026-01-02 03:04:05"
    assert short_time("yesterday") == "yesterday"


def test_table_cuts_the_flexible_column_to_the_width() -> None:
    rows = [["urn:a", "Agent", "q" * 200, "2026"], ["urn:b", "DocRAG", "short", "2026"]]
    out = render_table(["ID", "Type", "Question", "Time"], rows, Style(width=50), flex=2)
    assert all(len(line) <= 50 for line in out)
    assert out[0].split() == ["ID", "Type", "Question", "Time"]
    assert "q…" in out[2] and out[3].startswith("urn:b  DocRAG  short")


def test_json_keeps_every_key_and_round_trips() -> None:
    view = samples.graph_rag()
    data = view_json(view)
    assert data["error"] is None and "chunk_count" in data  # stable keys, even when null
    assert data["edges"][1]["o"] == {"t": "l", "v": "42"}  # terms in wire form, no nulls
    assert from_json(TraceView, json.loads(dumps(data))) == view
    assert dumps({"q": "é"}) == '{\n  "q": "é"\n}'


@pytest.mark.parametrize("provenance", [True, False])
def test_json_printed_in_pieces_is_the_whole_document(
    provenance: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    one = samples.agent()
    steps = [
        one.steps[0].model_copy(update={"index": i, "thought": f'step {i}: é "quoted"\n'})
        for i in range(1, 8)
    ]
    view = one.model_copy(
        update={"steps": steps, "metrics": {"synthesis": StageMetrics(model="m", latency_ms=1.5)}}
    )
    data = view_json(view)
    expected = (
        json.dumps(
            data if provenance else sources_not_requested(data), indent=2, ensure_ascii=False
        )
        + "\n"
    )
    out = StreamedView(provenance)
    out.head(view.model_copy(update={"steps": steps[:1], "metrics": {}}))
    for piece in ([steps[0]], [], steps[1:4], steps[4:]):  # as the pieces came
        out.steps(piece)
    out.tail(view.model_copy(update={"steps": []}))
    assert capsys.readouterr().out == expected
    StreamedView(provenance).whole(samples.graph_rag())  # no steps: printed in one go
    rag = view_json(samples.graph_rag())
    assert (
        capsys.readouterr().out
        == json.dumps(
            rag if provenance else sources_not_requested(rag), indent=2, ensure_ascii=False
        )
        + "\n"
    )


def test_detect_colour_on_a_terminal_and_plain_when_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "77")
    assert Style.detect(Stream(tty=True)) == Style(color=True, unicode=True, width=77)
    assert Style.detect(Stream(tty=False)) == Style(
        color=False, unicode=True, width=77, fit_tables=False
    )
    assert Style.detect(Stream(tty=False, encoding="ascii")).unicode is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert Style.detect(Stream(tty=True)).color is False
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert Style.detect(Stream(tty=False)).color is True
    monkeypatch.setenv("COLUMNS", "10")
    assert Style.detect(Stream(tty=False)).width == 40  # never narrower than usable


def test_paint_only_with_colour() -> None:
    assert Style(color=True).paint("x", "bold", "red") == "\x1b[1;31mx\x1b[0m"
    assert Style(color=False).paint("x", "bold") == "x"


def test_wrap_never_loses_text_or_overflows() -> None:
    import random

    rng = random.Random(7)
    for _ in range(2000):
        text = " ".join("x" * rng.randint(1, 40) for _ in range(rng.randint(0, 30)))
        label, width = rng.choice(["", "A", "Answer", "Observation"]), rng.randint(20, 90)
        lines = wrap_field(label, text, width)
        limit = max(width, min(len(label) + 2, 20) + 20)
        assert all(len(line) <= limit for line in lines)
        head = f"{label}: " if label else ""
        assert "".join(lines).replace(" ", "") == (head + text).replace(" ", "")
        assert all(line.strip() for line in lines[1:])  # no blank continuation lines
