// The Compare page: two answers and the evidence they rest on (explain diff-traces), at
// edge, chunk, page and document level: in both, only in A, only in B.

import * as api from "./api.js";
import { cut, h, route, statusBadge, typeBadge, when } from "./dom.js";

const LEVELS = [["edges", "Edges"], ["chunks", "Chunks"], ["pages", "Pages"], ["documents", "Documents"]];

function docOf(level, id) {
  // Chunk and page URIs are {doc}/p{n}[/c{m}] or {doc}/c{m}: the document is the prefix.
  if (level === "documents") return id;
  const m = id.match(/^(.*?)\/(p\d+|c\d+)(\/.*)?$/);
  return m ? m[1] : null;
}

function item(level, it, from, titles) {
  const doc = level === "edges" ? null : docOf(level, it.id);
  const index = it.id.match(/\/c(\d+)$/);
  let label = it.label || (level === "chunks" && index ? `chunk ${index[1]}` : it.id);
  if (level === "chunks" || level === "pages") {
    const page = it.id.match(/\/p(\d+)(\/|$)/);
    const where = [level === "chunks" && page ? `page ${page[1]}` : null, titles.get(doc) || doc].filter(Boolean);
    label = `${label} · ${where.join(" · ")}`;
  }
  const params = level === "pages" ? { page: it.id, from } : level === "chunks" ? { chunk: it.id, from } : { from };
  return h("li", {},
    doc ? h("a", { href: route("document", doc, params) }, label) : h("span", {}, label),
    it.cited_by?.length ? h("span", { class: "muted" }, ` (cited by ${it.cited_by.map((x) => x.toUpperCase()).join(" and ")})`) : null);
}

function column(title, mark, items, level, from, titles) {
  return h("div", { class: `diff-col diff-${mark}` },
    h("h4", {}, `${title} (${items.length})`),
    items.length ? h("ul", {}, items.map((it) => item(level, it, from, titles))) : h("p", { class: "muted" }, "none"));
}

function side(letter, summary, answer) {
  return h("div", { class: "diff-side" },
    h("p", { class: "meta" }, h("strong", {}, `Answer ${letter}`), " ", typeBadge(summary.type), " ", statusBadge(summary.status),
      " ", h("time", { datetime: summary.time }, when(summary.time))),
    h("h2", {}, h("a", { href: route("trace", summary.id) }, summary.question || summary.id)),
    h("p", { class: "diff-answer" }, answer ?? "(no answer recorded)"));
}

export async function comparePage(view, params, live) {
  const a = params.get("a"), b = params.get("b");
  if (!a || !b) {
    view.append(h("h1", {}, "Compare"), h("p", {}, "Open a trace and choose “Compare with another answer”."));
    return;
  }
  const data = await api.explain({ operation: "diff-traces", id: a, other: b });
  if (!live()) return;
  const diff = data.diff;
  document.title = "Compare · explaingraph";
  view.append(
    h("nav", { class: "crumbs", "aria-label": "Breadcrumb" }, h("a", { href: "#/" }, "Traces"), " › ", h("span", {}, "Compare")),
    h("h1", { tabindex: "-1", "data-autofocus": "" }, "Compare two answers"),
    h("p", { class: "lede" }, "What each answer rests on: evidence both used, and what only one of them used."),
    h("div", { class: "diff-sides" }, side("A", diff.a, diff.answer_a), side("B", diff.b, diff.answer_b)));
  const titles = new Map();
  for (const it of [...diff.documents.both, ...diff.documents.only_a, ...diff.documents.only_b]) titles.set(it.id, it.label || it.id);
  for (const [key, title] of LEVELS) {
    const level = diff[key] || { both: [], only_a: [], only_b: [] };
    view.append(h("section", { class: "diff-level", "aria-label": title },
      h("h3", {}, title),
      h("div", { class: "diff-grid" },
        column("Only in A", "a", level.only_a, key, a, titles),
        column("In both", "both", level.both, key, a, titles),
        column("Only in B", "b", level.only_b, key, b, titles))));
  }
}
