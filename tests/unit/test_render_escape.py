"""Stored text cannot drive the terminal: controls are shown escaped in text, tables and trees."""

from __future__ import annotations

from tests.golden import samples
from trustgraph_base.schema.explain import ChunkNode, DocumentView
from trustgraph_cli.render.document import render_document
from trustgraph_cli.render.style import Style
from trustgraph_cli.render.table import render_table
from trustgraph_cli.render.text import safe
from trustgraph_cli.render.trace import TraceOptions, render_trace

EVIL = "\x1b[2J\x1b]0;owned\x07Hi\rthere\x08\x7f\x85\u202eevil"
SHOWN = "\\x1b[2J\\x1b]0;owned\\x07Hi\\x0dthere\\x08\\u007f\\u0085\\u202eevil"
COLOUR = Style(color=True, unicode=True, width=200)


def test_safe_escapes_c0_c1_del_and_bidi_but_keeps_text_newlines_and_tabs() -> None:
    assert safe(EVIL) == SHOWN
    assert safe("Besançon → 東京\tnext\nline") == "Besançon → 東京\tnext\nline"
    assert safe("") == ""


def test_trace_tree_escapes_stored_text_and_keeps_its_own_colour() -> None:
    view = samples.agent().model_copy(update={"question": EVIL, "answer": EVIL})
    text = render_trace(view, COLOUR, TraceOptions(max_answer=0))
    assert SHOWN in text
    stripped = text.replace("\x1b[0m", "")
    for code in ("1", "2", "1;35", "1;36", "32", "33"):
        stripped = stripped.replace(f"\x1b[{code}m", "")
    assert "\x1b" not in stripped and "\x07" not in stripped and "\r" not in stripped


def test_document_tree_and_table_cells_are_escaped() -> None:
    doc = DocumentView(
        id="urn:trustgraph:doc:x",
        title=EVIL,
        mime_type="text/plain",
        chunks=[
            ChunkNode(
                uri="urn:trustgraph:doc:x/c0",
                index=0,
                content=EVIL,
                char_offset=0,
                char_length=len(EVIL),
            )
        ],
    )
    text = render_document(doc, Style(width=200), max_content=0)
    assert f'Title: "{SHOWN}"' in text and f'Content: "{SHOWN}"' in text
    assert "\x1b" not in text
    table = render_table(["Title"], [[EVIL]], Style(width=200))
    assert table[2] == SHOWN


def test_piped_tables_keep_every_character_terminal_tables_fit() -> None:
    title = "A title much longer than twelve characters"
    rows = [["urn:trustgraph:doc:" + "x" * 60, title, "complete"]]
    piped = render_table(["ID", "Title", "Status"], rows, Style(width=60, fit_tables=False), flex=1)
    assert title in piped[2]
    terminal = render_table(["ID", "Title", "Status"], rows, Style(width=60), flex=1)
    assert title not in terminal[2] and terminal[2].split("  ")[1].endswith("…")
