"""Text rendering of an assembled trace (``TraceView``): agent, GraphRAG and DocumentRAG."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from trustgraph_cli.render.agent_parts import call_node, step_fields, uses_text
from trustgraph_cli.render.parts import (
    CITED,
    answer_field,
    chunk_figures,
    claim_text,
    count_field,
    edge_text,
    evidence_names,
    metrics_text,
    place_text,
    removal_text,
    source_text,
    span_text,
)
from trustgraph_cli.render.style import Style
from trustgraph_cli.render.text import truncate
from trustgraph_cli.render.tree import Field, Node, render_child, render_head, render_tree
from trustgraph_cli.render.verdicts import claim_mark, verified_node

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import (
        AgentStepView,
        Removal,
        SourceRef,
        TraceView,
    )

TYPE_NAMES = {"agent": "Agent", "graph-rag": "GraphRAG", "document-rag": "DocRAG"}
PENDING = "(in progress)"
VERIFIED = "synthesis/verification"  # the verification's metrics key (an agent's: final/…)
STAGE_KEYS = frozenset(
    {"final", "exploration", "focus", "synthesis", VERIFIED, "final/verification"}
)


@dataclass(frozen=True)
class TraceOptions:
    """What to show: ``max_answer`` cuts long texts (0: never), ``show_provenance`` adds
    sources; ``texts`` holds page-less documents' texts by URI, for their spans' lines."""

    max_answer: int = 500
    show_provenance: bool = False
    texts: dict[str, str] = field(default_factory=dict)


def render_trace(view: TraceView, style: Style, opts: TraceOptions) -> str:
    """The whole trace as text, sub-traces nested under the agent steps that ran them."""
    return "\n".join(render_tree(_Builder(style, opts).root(view, sub=False), style))


class PieceRenderer:
    """Text of a trace read in pieces, as a streamed get-trace sends them (each piece the
    trace with its next steps, of ``total``): ``lines(piece)`` draws each as it arrives,
    and all of them together are the text ``render_trace`` gives of the whole."""

    def __init__(self, style: Style, opts: TraceOptions, total: int) -> None:
        self.style, self.total = style, total
        self.builder = _Builder(style, opts)
        self.drawn = 0
        self.ending: Node | None = None
        self.started = False

    def lines(self, view: TraceView) -> list[str]:
        if view.type != "agent":  # GraphRAG and DocumentRAG come whole
            return render_trace(view, self.style, self.builder.opts).split("\n")
        out: list[str] = []
        if not self.started:
            self.started = True
            self.ending = self.builder.conclusion(view)
            head = self.builder.root(view, sub=False, children=False)
            out += render_head(head, self.style, bool(self.total or self.ending))
        for step in view.steps:
            self.drawn += 1
            last = self.drawn == self.total and self.ending is None
            out += render_child(self.builder.step(view, step), self.style, last=last)
        if self.ending is not None and self.drawn >= self.total:
            out += render_child(self.ending, self.style, last=True)
            self.ending = None
        return out


class _Builder:
    def __init__(self, style: Style, opts: TraceOptions) -> None:
        self.style, self.opts = style, opts
        self.ellipsis = style.ellipsis

    def cut(self, text: str) -> str:
        return truncate(text, self.opts.max_answer, self.ellipsis)

    def root(self, view: TraceView, *, sub: bool, children: bool = True) -> Node:
        kind = TYPE_NAMES.get(view.type, view.type)
        node = Node(f"{kind} sub-trace" if sub else f"{kind} trace", view.id)
        node.title_paint = ("bold", "magenta")
        node.add("Question", view.question)
        node.add("Time", view.time)
        if view.status == "in-progress":
            node.add("Status", "in progress", "yellow")
        elif view.status == "failed":
            node.add("Status", "failed", "red", "bold")
        elif view.status == "interrupted":
            node.add("Status", "interrupted", "red", "bold")
        node.add("Error", view.error, "red")
        used = self.stage_keys(view)
        for key, figures in view.metrics.items():
            if key == "question":
                node.add("Metrics", metrics_text(figures))
            elif key not in used:
                node.add(f"Metrics ({key})", metrics_text(figures))
        if children:
            node.children = self.agent(view) if view.type == "agent" else self.rag(view)
        return node

    def stage_keys(self, view: TraceView) -> set[str]:
        """The metrics keys a stage node shows; any others are listed on the root."""
        return {f"i{s.index}" for s in view.steps} | STAGE_KEYS

    def stage(self, title: str, uri: str, view: TraceView, key: str, *fields: Field) -> Node:
        """A stage node: its fields, then its figures when the trace recorded any."""
        node = Node(title, uri, list(fields), title_paint=("bold", "cyan"))
        figures = view.metrics.get(key)
        if figures is not None:
            node.add("Metrics", metrics_text(figures), "dim")
        return node

    def pending(self, title: str) -> Node:
        return Node(title, PENDING, title_paint=("bold", "cyan"), value_paint=("yellow",))

    def agent(self, view: TraceView) -> list[Node]:
        nodes = [self.step(view, step) for step in view.steps]
        ending = self.conclusion(view)
        return nodes if ending is None else [*nodes, ending]

    def conclusion(self, view: TraceView) -> Node | None:
        """The agent's Conclusion node, a pending one while it runs, or None."""
        from trustgraph_base.provenance.uris import agent_final_uri, agent_step_index

        if view.answer is not None:
            fields = [answer_field(self.cut(view.answer))]
            # From the last step (or the question) is the seed's chain; else it named them.
            one = view.uses[0] if len(view.uses) == 1 else ""
            if len(view.uses) > 1 or (
                one and (agent_step_index(view.id, one) is None != (one == view.id))
            ):
                fields.append(Field("Uses", uses_text(view.id, view.uses), ("cyan",)))
            node = self.stage("Conclusion", agent_final_uri(view.id), view, "final", *fields)
            node.children += filter(None, [verified_node(view, "final/verification", self.cut)])
            return node
        if view.uses and view.status == "failed":  # a run that failed: no answer, and why
            node = self.stage("Conclusion", agent_final_uri(view.id), view, "final")
            node.add("Termination", "error", "red", "bold")
            node.add("Error", view.error, "red")
            return node
        if view.status == "in-progress":
            return self.pending("Conclusion")
        return None

    def step(self, view: TraceView, step: AgentStepView) -> Node:
        fields = step_fields(view.id, step, self.cut, PENDING)
        node = self.stage(f"Analysis {step.index}", step.uri, view, f"i{step.index}", *fields)
        for k, call in enumerate(step.calls, 1):
            child = call_node(k, call, self.cut, PENDING)
            child.children = [self.root(sub, sub=True) for sub in call.subtraces]
            node.children.append(child)
        node.children += [self.root(sub, sub=True) for sub in step.subtraces]
        return node

    def rag(self, view: TraceView) -> list[Node]:
        nodes: list[Node] = []
        if view.exploration is not None:
            nodes.append(self.exploration(view, view.exploration))
        if view.type == "graph-rag" and view.focus is not None:
            nodes.append(self.focus(view, view.focus))
        if view.synthesis is not None:
            answer = answer_field(self.cut(view.answer or ""))
            node = self.stage("Synthesis", view.synthesis, view, "synthesis", answer)
            names = evidence_names(view)
            for n, claim in enumerate(view.claims if self.opts.show_provenance else [], 1):
                node.add(f"Claim {n}", self.cut(claim_text(claim, names)) + claim_mark(claim))
            nodes.append(node)
            nodes += filter(None, [verified_node(view, VERIFIED, self.cut)])
        elif view.status == "in-progress":
            stages = {"Exploration": view.exploration, "Focus": view.focus, "Synthesis": None}
            if view.type != "graph-rag":
                del stages["Focus"]
            nodes.append(self.pending(next(n for n, uri in stages.items() if uri is None)))
        return nodes

    def exploration(self, view: TraceView, uri: str) -> Node:
        if view.type == "graph-rag":  # its chunks: the passages it read as text (no edge)
            counted = count_field("Edges retrieved", view.edge_count)
        else:
            count = view.chunk_count if view.chunk_count is not None else len(view.chunks)
            counted = count_field("Chunks retrieved", count)
        node = self.stage("Exploration", uri, view, "exploration", counted)
        for n, chunk in enumerate(view.chunks, start=1):
            child = Node(f"Chunk {n}", chunk.uri)
            for label, value in chunk_figures(chunk):
                child.add(label, value)
            child.add("", CITED if chunk.cited else None)
            self.removed(child, chunk.removed)
            if self.opts.show_provenance:
                self.sources(child, chunk.sources, within=chunk.uri)
            node.children.append(child)
        return node

    def focus(self, view: TraceView, uri: str) -> Node:
        node = self.stage(
            "Focus", uri, view, "focus", count_field("Edges selected", len(view.edges))
        )
        for n, edge in enumerate(view.edges, start=1):
            child = Node(f"Edge {n}", edge_text(edge, self.style), value_paint=())
            child.add("Reasoning", self.cut(edge.reasoning) if edge.reasoning else None)
            child.add("", CITED if edge.cited else None)
            self.removed(child, edge.removed)
            if self.opts.show_provenance:
                self.sources(child, edge.sources)
            node.children.append(child)
        return node

    def removed(self, node: Node, removals: list[Removal]) -> None:
        """``source removed on TIME (DOC; reason: …)`` where a removed document's link was."""
        for r in removals:
            node.add("", removal_text(r), "red")

    def sources(self, node: Node, sources: list[SourceRef], within: str | None = None) -> None:
        """One Source line per origin; ``within`` is a chunk the node already names."""
        if not sources:
            node.add("Source", "(none recorded)", "dim")
        for ref in sources:
            node.add("Source", source_text(ref, self.style, named=ref.chunk == within), "dim")
            text = self.opts.texts.get(ref.document)
            if within is not None and ref.char_offset is not None and ref.char_length is not None:
                place = place_text(ref.page_number, ref.char_offset, ref.char_length, text)
                node.add("Place", place)  # a chunk
            for span in ref.spans:
                node.add("Quote", self.cut(span_text(ref, span, text)))
