"""The trace renderer on hand-built views: every trace shape, truncation, provenance, wrapping."""

from __future__ import annotations

from tests.golden import samples
from trustgraph_cli.render.style import Style
from trustgraph_cli.render.trace import TraceOptions, render_trace

PLAIN = Style(color=False, unicode=True, width=100)


def show(view: object, style: Style = PLAIN, **opts: object) -> list[str]:
    return render_trace(view, style, TraceOptions(**opts)).splitlines()  # type: ignore[arg-type]


def test_agent_nests_the_subtrace_under_the_step_that_ran_it() -> None:
    out = show(samples.agent())
    assert out[:3] == [
        "Agent trace: urn:trustgraph:agent:a1",
        "  Question: How old is Alice's friend?",
        "  Time: 2026-01-02T03:04:05.000Z",
    ]
    assert "  ├── Analysis 1: urn:trustgraph:agent:a1/i1" in out
    assert "  │   Action: knowledge-query" in out
    assert "  │   └── GraphRAG sub-trace: urn:trustgraph:question:g1" in out
    assert "  │       ├── Focus: urn:trustgraph:question:g1/focus" in out
    assert "  │       │   ├── Edge 1: Alice → knows → Bob" in out
    assert out[-2:] == [
        "  └── Conclusion: urn:trustgraph:agent:a1/final",
        "      Answer: Bob is 42.",
    ]
    assert out.index("  │   Observation: Alice knows Bob, who is 42.") < out.index(
        "  │   └── GraphRAG sub-trace: urn:trustgraph:question:g1"
    )


def test_graph_rag_edges_reasoning_metrics_and_literal_objects() -> None:
    out = show(samples.graph_rag())
    assert "  │   Edges retrieved: 12" in out and "  │   Edges selected: 2" in out
    assert "  │   │   Reasoning: Alice is the person asked about." in out
    assert '  │   └── Edge 2: Bob → age → "42"' in out  # a literal keeps its quotes
    assert "      Metrics: model offline, tokens 120 in / 9 out, 12 ms" in out
    assert not any("Source:" in line for line in out)  # provenance only when asked


def test_provenance_follows_each_edge_to_page_and_document() -> None:
    out = show(samples.graph_rag(), Style(width=200), show_provenance=True)
    source = [line for line in out if "Source:" in line]
    assert source[0].split("   ")[-1] == (
        'Source: chunk 0 (urn:trustgraph:doc:sample/p1/c0) → page 1 → "Sample PDF" '
        "(urn:trustgraph:doc:sample)"
    )
    assert "page 2" in source[1]
    # each edge's sentence, with where it is on its page; a reworded quote says it is unlocated
    assert '  │   │   Quote: "Alice knows Bob well." (page 1, chars 312–332)' in out
    assert '  │       Quote: "Bob is forty-two." (unlocated: not found in its chunk)' in out
    # each sentence of the answer, with the evidence it cites by its name in the tree
    assert '      Claim 1: "Alice knows Bob, who is 42." → cites Edge 1, Edge 2' in out
    assert not any("Claim 1" in line for line in show(samples.graph_rag()))  # asked for only


def test_document_rag_lists_chunks_and_says_when_a_source_is_missing() -> None:
    out = show(samples.doc_rag(), show_provenance=True)
    assert "  │   Chunks retrieved: 2" in out
    assert "  │   ├── Chunk 1: urn:trustgraph:doc:sample/p1/c0" in out
    assert "  │       Source: (none recorded)" in out
    # the chunk URI is the node's title already: the source line does not repeat it
    assert '  │   │   Source: chunk 0 → page 1 → "Sample PDF" (urn:trustgraph:doc:sample)' in out
    assert "  │   │   Place: page 1, chars 0–1000" in out  # where the chunk is on its page
    assert out[-1] == "      Answer: The fox is quick and brown."


def test_in_progress_shows_what_exists_and_says_so() -> None:
    out = show(samples.in_progress())
    assert "  Status: in progress" in out
    assert "  │   Observation: (in progress)" in out
    assert out[-1] == "  └── Conclusion: (in progress)"


def test_failed_trace_shows_the_error() -> None:
    out = show(samples.failed())
    assert "  Status: failed" in out and "  Error: text-completion timed out" in out
    assert not any("(in progress)" in line for line in out)


def test_max_answer_cuts_with_a_visible_marker_and_zero_keeps_everything() -> None:
    long = samples.agent().model_copy(update={"answer": "word " * 300})
    cut = "\n".join(show(long, max_answer=40))
    assert "… [truncated, 1500 chars]" in cut
    assert "truncated" not in "\n".join(show(long, max_answer=0))


def test_long_text_wraps_to_the_width_with_a_hanging_indent() -> None:
    long = samples.agent().model_copy(update={"answer": "word " * 60})
    out = show(long, Style(width=60), max_answer=0)
    start = next(n for n, line in enumerate(out) if line.startswith("      Answer: word word"))
    assert all(len(line) <= 60 for line in out[start:])
    assert out[start + 1].startswith("              word")  # under the value, not the label


def test_an_entity_uri_is_never_cut_across_lines() -> None:
    for colour in (False, True):
        out = show(samples.agent(), Style(color=colour, width=40), max_answer=0)
        heads = [line for line in out if "urn:trustgraph:question:g1/synthesis" in line]
        assert heads and all("urn:trustgraph:question:g1/synthesis" in h for h in heads)
        assert not any(line.rstrip().endswith("urn:trustgraph:que") for line in out)
        assert all(not line.strip().startswith("stion:") for line in out)


def test_piped_ascii_and_colour_on_a_terminal() -> None:
    ascii_out = render_trace(samples.agent(), Style(unicode=False), TraceOptions())
    assert "|-- Analysis 1" in ascii_out and "`-- Conclusion" in ascii_out
    assert "Alice -> knows -> Bob" in ascii_out
    assert not any(ord(c) > 127 for c in ascii_out)
    coloured = render_trace(samples.agent(), Style(color=True), TraceOptions())
    assert "\x1b[" in coloured and "\x1b[" not in render_trace(
        samples.agent(), PLAIN, TraceOptions()
    )


def test_a_rag_trace_in_progress_names_the_stage_it_waits_for() -> None:
    partial = samples.graph_rag().model_copy(
        update={
            "status": "in-progress",
            "synthesis": None,
            "answer": None,
            "focus": None,
            "edges": [],
        }
    )
    assert show(partial)[-1] == "  └── Focus: (in progress)"
    doc = samples.doc_rag().model_copy(
        update={"status": "in-progress", "synthesis": None, "answer": None}
    )
    assert show(doc)[-1] == "  └── Synthesis: (in progress)"


def test_stages_arriving_out_of_order_still_name_the_missing_one() -> None:
    early_focus = samples.graph_rag().model_copy(
        update={"status": "in-progress", "exploration": None, "synthesis": None, "answer": None}
    )
    out = show(early_focus)
    assert out[-1] == "  └── Exploration: (in progress)"
    assert "  ├── Focus: urn:trustgraph:question:g1/focus" in out


def test_interrupted_trace_says_so_and_why_without_pretending_it_goes_on() -> None:
    reason = "the agent process stopped before this run finished"
    view = samples.in_progress().model_copy(update={"status": "interrupted", "error": reason})
    out = show(view)
    assert "  Status: interrupted" in out and f"  Error: {reason}" in out
    assert not any("Conclusion: (in progress)" in line for line in out)


def test_a_step_that_observed_nothing_says_so() -> None:
    # an imported retriever span (OTLP) is a step whose observation is empty: "(none)",
    # not a label with nothing after it; a step still running keeps "(in progress)"
    agent = samples.agent()
    steps = [step.model_copy(update={"observation": ""}) for step in agent.steps]
    out = show(agent.model_copy(update={"steps": steps}))
    assert "  │   Observation: (none)" in out
    assert not any(line.rstrip().endswith("Observation:") for line in out)
