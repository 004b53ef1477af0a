// A RAG trace's rows in the tree: exploration with the chunks it retrieved (GraphRAG's: the
// passages it read as text), focus with the edges selected as evidence (each with its
// sources), and the synthesis.

import { chunkFigures, cut, edgeText, h, sourceText, statusBadge, termText, when } from "./dom.js";
import { field, node, stage } from "./tracerows.js";

// Retrieved → selected → cited: ★ marks the evidence the answer cites (tg:cites); the rest was
// selected for the answer but not cited by it (docs/lineage.md).
function evidenceBadge(cited) {
  return cited
    ? h("span", { class: "cited", title: "the answer cites this" }, h("span", { "aria-hidden": "true" }, "★ "), "cited")
    : h("span", { class: "kind", title: "selected as evidence; the answer does not cite it" }, "selected");
}

function removedBadge(removed) {
  return removed?.length
    ? h("span", { class: "removed" }, h("span", { "aria-hidden": "true" }, "⚠ "), "source removed")
    : null;
}

function removedFields(removed) {
  return (removed || []).map((r) => field("Source removed",
    `${r.document || "its document"} was removed ${when(r.time)}${r.reason ? ` — ${r.reason}` : ""}`, { error: true }));
}

function sourceNodes(owner, sources) {
  return sources.map((ref, i) => node(`${owner}#source${i}`, "Source", sourceText(ref), {
    kind: "source", ref, fields: sourceFields(ref),
  }));
}

function sourceFields(ref) {
  return [
    field("Chunk", ref.chunk, { code: true }),
    ref.page ? field("Page", `page ${ref.page_number}`, { code: false }) : null,
    field("Document", ref.title || ref.document),
    field("Open", ref, { source: true }),
  ];
}

export function ragChildren(view) {
  const kids = [];
  if (view.exploration) {
    const graph = view.type === "graph-rag";
    const count = graph ? view.edge_count : (view.chunk_count ?? view.chunks.length);
    const n = stage(view, "exploration", view.exploration, "Exploration",
      `${count ?? "unknown"} ${graph ? "edges" : "chunks"} retrieved`,
      [field(graph ? "Edges retrieved" : "Chunks retrieved", String(count ?? "unknown"))]);
    // GraphRAG's too: a nearest passage that gave no edge, read as text (tg:selectedChunk)
    if (view.chunks?.length) {
      n.children = view.chunks.map((chunk, i) => {
        chunk = { ...chunk, sources: chunk.sources || [] };
        const figures = chunkFigures(chunk);
        const c = node(chunk.uri, `Chunk ${i + 1}`, chunk.sources.length ? sourceText(chunk.sources[0]) : chunk.uri, {
          kind: "chunk",
          badges: [...figures.map(([, badge]) => h("span", { class: "metric" }, badge)),
            evidenceBadge(chunk.cited), removedBadge(chunk.removed)],
          fields: [field("Chunk", chunk.uri, { code: true }),
            ...figures.map(([label, , detail]) => field(label, detail)), ...chunk.sources.map((ref) => field("Source", ref, { source: true })),
            ...removedFields(chunk.removed)],
        });
        if (!chunk.sources.length) c.fields.push(field("Source", "(none recorded)"));
        return c;
      });
      n.expanded = true;
    }
    kids.push(n);
  }
  if (view.type === "graph-rag" && view.focus) {
    const n = stage(view, "focus", view.focus, "Focus", `${view.edges.length} edge${view.edges.length === 1 ? "" : "s"} selected as evidence`,
      [field("Edges selected", String(view.edges.length))]);
    n.children = view.edges.map((edge, i) => {
      edge = { ...edge, sources: edge.sources || [] };
      const key = edge.uri || `${view.focus}#${i}`;
      const e = node(key, `Edge ${i + 1}`, edgeText(edge), {
        kind: "edge", edge,
        badges: [evidenceBadge(edge.cited), removedBadge(edge.removed)],
        fields: [
          field("Edge", edgeText(edge)),
          field("Reasoning", edge.reasoning || "(none recorded)"),
          // its label where the store has one: the URI's lower-cased tail only when it has gone
          field("Subject", termText(edge.s, edge.s_label), { code: true, title: JSON.stringify(edge.s) }),
          field("Predicate", termText(edge.p, edge.p_label), { code: true, title: JSON.stringify(edge.p) }),
          field("Object", termText(edge.o, edge.o_label), { code: true, title: JSON.stringify(edge.o) }),
          ...(edge.sources.length ? edge.sources.map((ref) => field("Source", ref, { source: true })) : [field("Source", "(none recorded)")]),
          ...removedFields(edge.removed),
        ],
      });
      if (edge.sources.length) e.children = sourceNodes(key, edge.sources);
      return e;
    });
    n.expanded = true;
    kids.push(n);
  }
  if (view.synthesis) {
    kids.push(stage(view, "synthesis", view.synthesis, "Synthesis", cut(view.answer, 160), [field("Answer", view.answer || "")]));
  } else if (view.status === "in-progress") {
    kids.push(node(`${view.id}/pending`, "Next stage", "in progress", { badges: [statusBadge("in-progress")] }));
  }
  return kids;
}
