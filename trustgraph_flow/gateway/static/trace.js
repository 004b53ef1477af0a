// The Trace page: the same content as `tg-show-explain-trace --show-provenance`, as a
// collapsible tree with a details panel, and the lineage picture above it. An agent trace
// arrives a window of steps at a time; steps not yet fetched are placeholders.

import { TREE_KEYS, failedEnding, graphSwitch } from "./agentgraph.js";
import * as api from "./api.js";
import {
  TYPE_NAMES, chunkFigures, clear, cut, edgeText, h, metricsText, route, sourceText, statusBadge,
  termText, typeBadge, when,
} from "./dom.js";
import { claimsSection } from "./evidence.js";
import { lineageSvg } from "./lineage.js";
import { edgePdfPlace, pageFigure } from "./pagefigure.js";
import { VirtualTree } from "./tree.js";

export const WINDOW = 500; // agent steps per get-trace request
const SMALL = 30; // an agent trace this short opens with its sub-traces expanded

function node(key, title, summary, extra) {
  return { key, title, summary, badges: [], children: null, expanded: false, fields: [], ...extra };
}

function metricBadge(m) {
  const text = metricsText(m);
  return text ? h("span", { class: "metric" }, text.replace(/^model /, "")) : null;
}

function field(label, value, opts) {
  return { label, value, ...(opts || {}) };
}

function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function traceNode(view, sub) {
  const kind = TYPE_NAMES[view.type] || view.type;
  const root = node(view.id, sub ? `${kind} sub-trace` : `${kind} trace`, view.question, {
    kind: "trace", view, expanded: true,
    badges: [statusBadge(view.status), metricBadge(view.metrics?.question)],
    fields: [
      field("Question", view.question), field("Type", kind), field("Status", view.status, { status: true }),
      field("Time", when(view.time), { title: view.time }),
      view.error ? field("Error", view.error, { error: true }) : null,
      field("Trace id", view.id, { code: true }),
      view.parent ? field("Called from", view.parent, { code: true, node: view.parent }) : null,
      view.metrics?.question ? field("Cost", metricsText(view.metrics.question)) : null,
    ],
  });
  root.children = view.type === "agent" ? agentChildren(view) : ragChildren(view);
  return root;
}

function stage(view, key, uri, title, summary, fields) {
  const m = view.metrics?.[key];
  return node(uri, title, summary, {
    kind: "stage", badges: [metricBadge(m)],
    fields: [...fields, m ? field("Cost", metricsText(m)) : null, field("URI", uri, { code: true })],
  });
}

// What a step (or the conclusion) named as used, as links to those steps; null for the seed's
// chain (each step from the one before, the conclusion from the last), which says nothing new.
function usesField(view, uses, index) {
  if (!uses?.length) return null;
  const seed = index === undefined
    ? uses.length === 1 && (uses[0] === view.id || /\/i\d+$/.test(uses[0]))
    : uses.length === 1 && uses[0] === (index === 1 ? view.id : `${view.id}/i${index - 1}`);
  if (seed) return null;
  const links = [];
  for (const uri of uses) {
    const m = uri.startsWith(`${view.id}/`) ? /^i(\d+)(?:\/c(\d+))?/.exec(uri.slice(view.id.length + 1)) : null;
    const label = uri === view.id ? "the question" : m ? `step ${m[1]}${m[2] ? ` call ${m[2]}` : ""}` : uri;
    const target = m ? `${view.id}/i${m[1]}${m[2] ? `/c${m[2]}` : ""}` : uri;
    if (!links.some((l) => l.label === label)) links.push({ label, node: target });
  }
  return field("Uses", links.map((l) => l.label).join(", "), { links });
}

function deadEndBadge() {
  return h("span", { class: "kind dead-end", title: "the answer does not rely on this step" }, "dead end");
}

function callNode(call, k) {
  const n = node(call.uri, `Call ${k}`, `${call.action} — ${cut(call.observation ?? "", 140)}`, {
    kind: "stage",
    fields: [
      field("Action", call.action, { code: true }),
      call.arguments ? field("Arguments", prettyJson(call.arguments), { pre: true }) : null,
      field("Observation", call.observation ?? "(not yet known)"), field("URI", call.uri, { code: true }),
    ],
  });
  if (call.subtraces?.length) n.children = call.subtraces.map((sub) => traceNode(sub, true));
  return n;
}

function stepNode(view, step) {
  const calls = step.calls || [];
  const n = stage(view, `i${step.index}`, step.uri, `Step ${step.index}`,
    `${step.action || "(no action)"} — ${cut(step.thought, 140)}`, [
      field("Thought", step.thought), field("Action", step.action, { code: true }),
      step.arguments && !calls.length ? field("Arguments", prettyJson(step.arguments), { pre: true }) : null,
      usesField(view, step.uses, step.index),
      calls.length ? null : field("Observation", step.observation ?? "(not yet known: the step is still running)"),
      step.used === false ? field("Used by the answer", "no: a dead end the answer does not rely on") : null,
    ]);
  n.kind = "step";
  if (step.observation === null || step.observation === undefined) n.badges.unshift(statusBadge("in-progress"));
  if (step.used === false) n.badges.unshift(deadEndBadge());
  const kids = [...calls.map((c, i) => callNode(c, i + 1)), ...(step.subtraces || []).map((sub) => traceNode(sub, true))];
  if (kids.length) {
    n.children = kids;
    n.expanded = (view.step_total ?? view.steps.length) <= SMALL;
  }
  return n;
}

function placeholder(view, index) {
  return node(`${view.id}/i${index}`, `Step ${index}`, "loading…", { kind: "step", placeholder: true, index });
}

function agentChildren(view) {
  const total = view.step_total ?? view.steps.length;
  const byIndex = new Map(view.steps.map((s) => [s.index, s]));
  const kids = [];
  // Steps are numbered from 1 in order; a window that arrived replaces its placeholders.
  for (let i = 1; i <= Math.max(total, view.steps.length ? view.steps.at(-1).index : 0); i++) {
    const step = byIndex.get(i);
    kids.push(step ? stepNode(view, step) : placeholder(view, i));
  }
  if (view.answer !== null && view.answer !== undefined) {
    kids.push(stage(view, "final", `${view.id}/final`, "Conclusion", cut(view.answer, 160),
      [field("Answer", view.answer), usesField(view, view.uses)]));
  } else if (failedEnding(view)) { // no answer: the run failed, and why
    kids.push(stage(view, "final", `${view.id}/final`, "Conclusion", `error: ${cut(view.error || "", 150)}`,
      [field("Termination", "error", { error: true }), field("Error", view.error || "", { error: true }),
        usesField(view, view.uses)]));
  } else if (view.status === "in-progress") {
    kids.push(node(`${view.id}/final`, "Conclusion", "in progress", { badges: [statusBadge("in-progress")] }));
  }
  return kids;
}

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

function ragChildren(view) {
  const kids = [];
  if (view.exploration) {
    const graph = view.type === "graph-rag";
    const count = graph ? view.edge_count : (view.chunk_count ?? view.chunks.length);
    const n = stage(view, "exploration", view.exploration, "Exploration",
      `${count ?? "unknown"} ${graph ? "edges" : "chunks"} retrieved`,
      [field(graph ? "Edges retrieved" : "Chunks retrieved", String(count ?? "unknown"))]);
    if (!graph && view.chunks.length) {
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

function sourceLink(ref, traceId) {
  const label = ref.page
    ? `Page ${ref.page_number} of ${ref.title ? `“${ref.title}”` : ref.document}`
    : (ref.title ? `“${ref.title}”` : ref.document);
  return h("a", { href: route("document", ref.document, { page: ref.page, chunk: ref.chunk, from: traceId }), class: "source-link" },
    label, h("span", { class: "muted" }, ref.chunk_index !== null && ref.chunk_index !== undefined ? `, chunk ${ref.chunk_index}` : ""));
}

function details(panel, n, traceId, tree) {
  clear(panel);
  if (!n) {
    panel.append(h("p", { class: "muted" }, "Select a row of the tree to see all of it here."));
    return;
  }
  panel.append(h("h2", { id: "details-title" }, n.title));
  const dl = h("dl", {});
  for (const f of n.fields || []) {
    if (!f) continue;
    let value;
    if (f.source) value = typeof f.value === "string" ? f.value : sourceLink(f.value, traceId);
    else if (f.status) value = statusBadge(f.value);
    else if (f.node) {
      value = h("a", { href: route("trace", traceId, { node: f.value }) }, f.value);
    } else if (f.links) { // what a step used: each a link to that step in the tree
      value = h("span", {}, ...f.links.flatMap((l, i) => [
        i ? ", " : null, h("a", { href: route("trace", traceId, { node: l.node }) }, l.label)]));
    } else if (f.pre) value = h("pre", {}, f.value);
    else if (f.code) value = h("code", { title: f.title || null }, f.value);
    else value = h("span", { class: f.error ? "error-text" : "text", title: f.title || null }, f.value);
    dl.append(h("dt", {}, f.label), h("dd", {}, value));
  }
  panel.append(dl);
  const place = n.kind === "edge" ? edgePdfPlace(n.edge) : null;
  if (place) { // the sentence that states the edge, highlighted on its page
    panel.dataset.shown = n.key;
    panel.append(h("blockquote", { class: "evidence-quote" }, h("mark", {}, place.quote)));
    pageFigure(panel, place, () => panel.dataset.shown === n.key);
  }
  if (n.children && n.children.length) {
    const b = h("button", { type: "button" }, n.expanded ? "Collapse in tree" : "Expand in tree");
    b.addEventListener("click", () => {
      tree.toggle(n);
      details(panel, n, traceId, tree);
    });
    panel.append(b);
  }
}

/** The whole trace (its TraceView JSON, with provenance, null fields left out), a window of steps at a time. */
async function wholeTrace(id, first) {
  const steps = [...first.trace.steps];
  for (let offset = WINDOW; offset < (first.step_total || 0); offset += WINDOW) {
    steps.push(...(await fetchWindow(id, offset)).trace.steps);
  }
  return { ...first.trace, steps };
}

function saveFile(name, type, text) {
  const link = h("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

// Export formats: the store's export-trace (the trace, its sub-traces and the source chain
// it rests on, as RDF or PROV), and the viewer's own JSON of the assembled trace.
const FORMATS = [
  ["trig", "TriG (RDF, named graphs)", "trig"], ["turtle", "Turtle", "ttl"], ["jsonld", "JSON-LD", "jsonld"],
  ["provn", "PROV-N", "provn"], ["provjson", "PROV-JSON", "json"], ["view", "JSON (as shown here)", "json"],
];

function exportButton(traceId, first) {
  const status = h("span", { class: "muted", role: "status" });
  const format = h("select", { id: "export-format", "aria-label": "Export format" },
    FORMATS.map(([value, label]) => h("option", { value }, label)));
  const button = h("button", { type: "button" }, "Export");
  button.addEventListener("click", async () => {
    status.textContent = " Fetching…";
    const [value, , ext] = FORMATS.find(([v]) => v === format.value);
    const name = `${traceId.replace(/^urn:trustgraph:/, "").replace(/[^A-Za-z0-9._-]+/g, "-")}.${ext}`;
    try {
      if (value === "view") {
        const whole = await wholeTrace(traceId, first);
        saveFile(name, "application/json", `${JSON.stringify(whole, null, 2)}\n`);
      } else {
        const data = await api.explain({ operation: "export-trace", id: traceId, format: value });
        saveFile(name, data.media_type || "text/plain", data.export);
      }
      status.textContent = "";
    } catch (err) {
      status.textContent = ` ${err.message}`;
    }
  });
  return [h("label", { for: "export-format", class: "muted" }, "Export as"), format, button, status];
}

/** The trace's signature as the store checks it (verify-trace, docs/audit.md), filled in
 * when it answers: a long trace takes a moment, and the page does not wait for it. */
function sealBadge(traceId) {
  const badge = h("span", { class: "seal seal-checking", role: "status" }, "checking signature…");
  const show = (cls, word, title) => {
    badge.className = `seal ${cls}`;
    badge.textContent = word;
    badge.title = title;
  };
  api.explain({ operation: "verify-trace", id: traceId }).then((data) => {
    const v = data.verification || { traces: [], problems: [] };
    if (v.verified) {
      show("seal-verified", "✓ verified", "Its quads are the ones the store signed when it ended.");
    } else if (!v.problems.length && v.traces.some((c) => c.status === "in-progress")) {
      show("seal-pending", "not signed yet", "A trace is signed when it ends.");
    } else {
      show("seal-tampered", "changed since signed", v.problems.map((p) => p.message).join("\n"));
    }
  }, (err) => show("seal-unknown", "signature not checked", err.message));
  return badge;
}

async function fetchWindow(id, offset) {
  return api.explain({ operation: "get-trace", id, include_provenance: true, step_offset: offset, step_limit: WINDOW });
}

export async function tracePage(view, id, params, live) {
  const first = await fetchWindow(id, 0);
  if (!live()) return;
  const trace = { ...first.trace, step_total: first.step_total };
  const traceId = trace.id;
  document.title = `${cut(trace.question, 60)} · explaingraph`;

  const windows = new Map([[0, Promise.resolve()]]); // step offset → its request
  const panel = h("aside", { class: "details", "aria-labelledby": "details-title", "aria-live": "polite" });
  let graph = null; // an agent trace's "Tree | Graph" switch
  const tree = new VirtualTree({
    label: "Trace steps",
    onSelect: (n) => {
      details(panel, n, traceId, tree);
      graph?.select(n.key);
      history.replaceState(null, "", route("trace", traceId, { node: n.key, show: graph?.showing() ? "graph" : null }));
    },
    onNeed: (n) => {
      // One request per window of steps, however many of its placeholders scroll past.
      const offset = Math.floor((n.index - 1) / WINDOW) * WINDOW;
      if (windows.has(offset)) return;
      windows.set(offset, fetchWindow(traceId, offset).then((more) => {
        const root = tree.roots[0];
        const fresh = new Map(more.trace.steps.map((s) => [s.uri, stepNode(more.trace, s)]));
        root.children = root.children.map((c) => fresh.get(c.key) || c);
        tree.index();
        tree.refresh();
      }, (err) => {
        setTimeout(() => windows.delete(offset), 5000); // then let a placeholder in view ask again
        n.summary = `could not load this step: ${err.message}`;
        tree.render();
      }));
    },
  });
  tree.setRoots([traceNode(trace, false)]);
  const left = h("div", { class: "steps-view" }, tree.el);
  // An agent trace's steps can also be drawn as the graph of what each used.
  const hint = h("p", { class: "muted keys" }, TREE_KEYS);
  if (trace.type === "agent") graph = graphSwitch(trace, tree, left, hint, params.get("show") === "graph");

  const kind = TYPE_NAMES[trace.type] || trace.type;
  view.append(
    h("nav", { class: "crumbs", "aria-label": "Breadcrumb" }, h("a", { href: "#/" }, "Traces"), " › ", h("span", {}, `${kind} trace`)),
    h("h1", { tabindex: "-1", "data-autofocus": "" }, trace.question || "(no question text)"),
    h("p", { class: "meta" }, typeBadge(trace.type), " ", statusBadge(trace.status), " ", sealBadge(traceId), " ",
      h("time", { datetime: trace.time, title: trace.time }, when(trace.time)), " ",
      h("code", { class: "trace-id" }, trace.id),
      trace.step_total ? h("span", { class: "muted" }, ` · ${trace.step_total.toLocaleString()} step${trace.step_total === 1 ? "" : "s"}`) : null));
  view.append(h("p", { class: "actions" },
    h("a", { class: "button", href: route("traces", "", { compare: traceId }) }, "Compare with another answer"), " ",
    ...exportButton(traceId, first)));
  if (trace.error) view.append(h("div", { class: "notice error", role: "alert" }, h("strong", {}, "This trace failed: "), trace.error));
  view.append(h("section", { class: "answer", "aria-labelledby": "answer-h" },
    h("h2", { id: "answer-h" }, "Answer"),
    h("p", {}, trace.answer ?? (trace.status === "in-progress" ? "Not answered yet: the trace is still running."
      : trace.status === "failed" ? `No answer: the run failed (${trace.error || "no reason recorded"}).` : "(no answer recorded)"))));
  const claims = claimsSection(trace);
  if (claims) view.append(claims);
  const picture = lineageSvg(trace, traceId);
  const partial = trace.step_total > trace.steps.length;
  view.append(h("section", { class: "lineage-section", "aria-labelledby": "lineage-h" },
    h("h2", { id: "lineage-h" }, "Where the answer came from"),
    partial ? h("p", { class: "notice" }, `Drawn from the first ${trace.steps.length.toLocaleString()} of ${trace.step_total.toLocaleString()} steps; the tree fetches the rest as you scroll to them.`) : null,
    picture
      ? h("p", { class: "muted" }, "Each box is a link: follow an edge or chunk to the page and document it was extracted from.")
      : h("p", { class: "muted" }, "This trace used no recorded evidence (no edges or chunks)."),
    picture));
  view.append(h("section", { class: "explorer", "aria-labelledby": "steps-h" },
    h("h2", { id: "steps-h" }, "How it was reached"),
    graph?.bar,
    hint,
    h("div", { class: "split" }, left, panel)));

  // A box of the picture that names a node of this trace opens it here, without a reload.
  view.addEventListener("click", (e) => {
    const link = e.target.closest("a.box");
    if (!link) return;
    const target = new URLSearchParams((link.getAttribute("href").split("?")[1]) || "");
    if (link.getAttribute("href").startsWith(route("trace", traceId)) && tree.reveal(target.get("node"), true)) {
      e.preventDefault();
    }
  });

  const wanted = params.get("node");
  view.addEventListener("shown", () => {
    tree.render();
    if (!(wanted && tree.reveal(wanted, true))) {
      tree.select(tree.roots[0]);
    }
  }, { once: true });
}
