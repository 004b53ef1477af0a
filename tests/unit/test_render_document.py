"""The document tree renderer: the exact SPEC.md layout, content previews and edges."""

from __future__ import annotations

from tests.golden import samples
from trustgraph_base.schema.explain import ChunkNode, DocumentView, PageNode
from trustgraph_cli.render.document import render_document
from trustgraph_cli.render.style import Style
from trustgraph_cli.show_document_hierarchy import all_chunks, with_contents

SPEC_EXAMPLE = """\
Document: urn:trustgraph:doc:abc123
  Title: "Sample PDF"
  Type: application/pdf

  └── Page 1: urn:trustgraph:doc:abc123/p1
      ├── Chunk 0: urn:trustgraph:doc:abc123/p1/c0
      │   Content: "The quick brown fox..." [truncated]
      └── Chunk 1: urn:trustgraph:doc:abc123/p1/c1
          Content: "Machine learning is..." [truncated]"""


def test_the_spec_example_exactly() -> None:
    doc = "urn:trustgraph:doc:abc123"
    chunks = [
        ChunkNode(
            uri=f"{doc}/p1/c0",
            index=0,
            char_offset=0,
            char_length=40,
            content="The quick brown fox jumps over the lazy dog",
        ),
        ChunkNode(
            uri=f"{doc}/p1/c1",
            index=1,
            char_offset=40,
            char_length=40,
            content="Machine learning is a field of study",
        ),
    ]
    view = DocumentView(
        id=doc,
        title="Sample PDF",
        mime_type="application/pdf",
        pages=[PageNode(uri=f"{doc}/p1", number=1, chunks=chunks)],
    )
    assert render_document(view, Style(), max_content=19) == SPEC_EXAMPLE


def test_edges_under_each_chunk_and_short_content_is_not_marked() -> None:
    out = render_document(samples.document(), Style(), max_content=200).splitlines()
    assert "      │   └── Fox → jumps over → Dog" in out
    assert '          Content: "Machine learning is fun."' in out
    assert any(line.endswith("[truncated]") for line in out)


def test_without_content_and_page_less_documents() -> None:
    doc = "urn:trustgraph:doc:notes"
    view = DocumentView(
        id=doc,
        title="Notes",
        mime_type="text/plain",
        chunks=[
            ChunkNode(uri=f"{doc}/c0", index=0, char_offset=0, char_length=5),
            ChunkNode(uri=f"{doc}/c1", index=1, char_offset=5, char_length=5),
        ],
    )
    out = render_document(view, Style()).splitlines()
    assert out[-2:] == [f"  ├── Chunk 0: {doc}/c0", f"  └── Chunk 1: {doc}/c1"]
    assert not any("Content" in line for line in out)


def test_an_empty_document_says_it_may_still_be_processing() -> None:
    view = DocumentView(id="urn:trustgraph:doc:x", mime_type="text/plain")
    assert "may still be processing" in render_document(view, Style())


def test_contents_fill_every_chunk_and_missing_ones_are_empty() -> None:
    view = samples.document()
    uris = [c.uri for c in all_chunks(view)]
    filled = with_contents(view, {uris[0]: "alpha"})
    assert [c.content for c in all_chunks(filled)] == ["alpha", ""]


def test_used_by_says_cited_and_only_retrieved_apart() -> None:
    from trustgraph_cli.render.document import answers

    assert answers(3, 1) == "3 answers (1 cited it, 2 only retrieved it)"
    assert answers(1, 0) == "1 answer (0 cited it, 1 only retrieved it)"
    assert answers(0, 0) == "0 answers" and answers(2) == "2 answers" and answers(None) is None
