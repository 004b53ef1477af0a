// The details panel of a trace page: every field of the row chosen in the tree, its sources
// as links to their documents, and for an edge the sentence that states it on its page.

import { clear, h, route, statusBadge } from "./dom.js";
import { edgePdfPlace, pageFigure } from "./pagefigure.js";

function sourceLink(ref, traceId) {
  const label = ref.page
    ? `Page ${ref.page_number} of ${ref.title ? `“${ref.title}”` : ref.document}`
    : (ref.title ? `“${ref.title}”` : ref.document);
  return h("a", { href: route("document", ref.document, { page: ref.page, chunk: ref.chunk, from: traceId }), class: "source-link" },
    label, h("span", { class: "muted" }, ref.chunk_index !== null && ref.chunk_index !== undefined ? `, chunk ${ref.chunk_index}` : ""));
}

export function details(panel, n, traceId, tree) {
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
