// The Document page: its pages and chunks with their text, and the edges extracted from
// each chunk. Reached from a trace's source links; ?page= / ?chunk= mark where to look.

import * as api from "./api.js";
import { cut, edgeText, h, route } from "./dom.js";

function chunkArticle(chunk, text, marked) {
  const edges = chunk.edges || [];
  return h("article", { class: `chunk${marked ? " target" : ""}`, id: `chunk-${chunk.uri}`, "aria-labelledby": `ct-${chunk.uri}` },
    h("h3", { id: `ct-${chunk.uri}`, tabindex: "-1" },
      `Chunk ${chunk.index}`,
      h("span", { class: "muted" }, ` · characters ${chunk.char_offset}–${chunk.char_offset + chunk.char_length}`),
      marked ? h("span", { class: "here" }, h("span", { "aria-hidden": "true" }, "◆ "), "used by the answer you came from") : null),
    text === undefined
      ? h("p", { class: "muted" }, "(the librarian has no text for this chunk)")
      : h("blockquote", { class: "chunk-text" }, text),
    h("h4", {}, edges.length ? `Edges extracted from this chunk (${edges.length})` : "No edges were extracted from this chunk."),
    edges.length ? h("ul", { class: "edges" }, edges.map((e) => h("li", {}, edgeText(e)))) : null);
}

export async function documentPage(view, id, params, live) {
  const data = await api.explain({ operation: "document-hierarchy", id });
  if (!live()) return;
  const doc = data.document;
  const chunks = [...doc.pages.flatMap((p) => p.chunks), ...doc.chunks];
  const texts = await api.contents(chunks.map((c) => c.uri));
  if (!live()) return;
  const wantPage = params.get("page");
  const wantChunk = params.get("chunk");
  const from = params.get("from");
  const title = doc.title || doc.id;
  document.title = `${cut(title, 60)} · explaingraph`;
  const edgeCount = chunks.reduce((n, c) => n + (c.edges || []).length, 0);

  const crumbs = h("nav", { class: "crumbs", "aria-label": "Breadcrumb" }, h("a", { href: "#/" }, "Traces"), " › ");
  if (from) crumbs.append(h("a", { href: route("trace", from), class: "back" }, "the trace you came from"), " › ");
  crumbs.append(h("span", {}, title));
  view.append(crumbs,
    h("h1", { tabindex: "-1", "data-autofocus": wantPage || wantChunk ? null : "" }, title),
    h("p", { class: "meta" },
      doc.mime_type ? h("span", { class: "kind" }, doc.mime_type) : null, " ",
      h("code", {}, doc.id), " ",
      h("span", { class: "muted" }, `${doc.pages.length} pages · ${chunks.length} chunks · ${edgeCount} edges extracted`)));
  if (from) view.append(h("p", {}, h("a", { href: route("trace", from), class: "button" }, "← Back to the trace")));

  if (doc.pages.length) {
    view.append(h("nav", { class: "toc", "aria-label": "Pages" }, h("span", { class: "muted" }, "Pages: "),
      doc.pages.map((p) => h("a", { href: route("document", doc.id, { page: p.uri, from }), "aria-current": p.uri === wantPage ? "true" : null }, String(p.number)))));
  }
  for (const page of doc.pages) {
    const marked = page.uri === wantPage;
    view.append(h("section", { class: `doc-page${marked ? " target" : ""}`, id: `page-${page.uri}`, "aria-labelledby": `pt-${page.uri}` },
      h("h2", { id: `pt-${page.uri}`, tabindex: "-1", "data-autofocus": marked && !wantChunk ? "" : null },
        `Page ${page.number}`,
        marked ? h("span", { class: "here" }, h("span", { "aria-hidden": "true" }, "◆ "), "the page the evidence came from") : null),
      page.chunks.length ? page.chunks.map((c) => chunkArticle(c, texts[c.uri], c.uri === wantChunk)) : h("p", { class: "muted" }, "No chunks on this page.")));
  }
  if (doc.chunks.length) {
    view.append(h("section", { class: "doc-page" }, h("h2", {}, "Chunks"),
      doc.chunks.map((c) => chunkArticle(c, texts[c.uri], c.uri === wantChunk))));
  }
  if (wantChunk) {
    const heading = [...view.querySelectorAll("article.chunk h3")].find((el) => el.id === `ct-${wantChunk}`);
    if (heading) heading.setAttribute("data-autofocus", "");
  }
  view.addEventListener("shown", () => {
    const target = view.querySelector("[data-autofocus]");
    if (target) target.scrollIntoView({ block: "center" });
  }, { once: true });
}
