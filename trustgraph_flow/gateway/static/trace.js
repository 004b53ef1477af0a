// The Trace page: the same content as `tg-show-explain-trace --show-provenance`, as a
// collapsible tree (tracetree.js) with a details panel (details.js), and the lineage picture
// above it. An agent trace arrives a window of steps at a time; steps not yet fetched are
// placeholders.

import { TREE_KEYS, graphSwitch } from "./agentgraph.js";
import * as api from "./api.js";
import { details } from "./details.js";
import { TYPE_NAMES, cut, h, route, statusBadge, typeBadge, when } from "./dom.js";
import { claimsSection } from "./evidence.js";
import { lineageSvg } from "./lineage.js";
import { exportButton } from "./traceexport.js";
import { stepNode, traceNode } from "./tracetree.js";
import { VirtualTree } from "./tree.js";

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

export async function tracePage(view, id, params, live) {
  const first = await api.traceWindow(id, 0);
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
      const offset = Math.floor((n.index - 1) / api.WINDOW) * api.WINDOW;
      if (windows.has(offset)) return;
      windows.set(offset, api.traceWindow(traceId, offset).then((more) => {
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
