// The Document page: its pages and chunks with their text, and the edges extracted from
// each chunk. Reached from a trace's source links; ?page= / ?chunk= mark where to look.

import * as api from "./api.js";
import { cut, edgeText, h, route, statusBadge, typeBadge, when } from "./dom.js";
import { foundElsewhere } from "./elsewhere.js";

/** "Answers that used this page": a disclosure that asks the store (source-usage) when opened. */
function usedBy(uri, count, what, from, open, cited) {
  const n = count ?? null;
  let label = n === null ? `Answers that used this ${what}` : `${n} answer${n === 1 ? "" : "s"} used this ${what}`;
  if (n && cited != null) label += `: ${cited} cited it, ${n - cited} only retrieved it`;
  const body = h("div", { class: "usage-body" }, h("p", { class: "muted" }, "Loading…"));
  const box = h("details", { class: "usage", open: open && n !== 0 }, h("summary", {}, label), body);
  let loaded = false;
  const load = async () => {
    if (loaded || !box.open) return;
    loaded = true;
    try {
      const data = await api.explain({ operation: "source-usage", id: uri, limit: 50 });
      const traces = data.usage?.traces || [];
      body.replaceChildren(traces.length
        ? h("ul", { class: "usage-list" }, traces.map((u) => h("li", {},
          statusBadge(u.trace.status), " ", typeBadge(u.trace.type), " ",
          h("a", { href: route("trace", u.trace.id), "aria-current": u.trace.id === from ? "true" : null }, cut(u.trace.question, 120) || u.trace.id),
          " ", h("time", { class: "muted", datetime: u.trace.time }, when(u.trace.time)),
          u.trace.id === from ? h("span", { class: "here" }, "the trace you came from") : null,
          u.paths.some((p) => p.cited) ? h("span", { class: "cited" }, " ★ cited it") : h("span", { class: "muted" }, " retrieved only"),
          u.paths.some((p) => p.trace !== u.trace.id) ? h("span", { class: "muted" }, " (through an agent tool)") : null)))
        : h("p", { class: "muted" }, `No answer has used this ${what} yet.`));
    } catch (err) {
      body.replaceChildren(h("p", { class: "error-text" }, err.message));
      loaded = false;
    }
  };
  box.addEventListener("toggle", load);
  if (box.open) queueMicrotask(load);
  return box;
}

function chunkArticle(chunk, text, marked, from) {
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
    edges.length ? h("ul", { class: "edges" }, edges.map((e) => h("li", {}, edgeText(e)))) : null,
    usedBy(chunk.uri, chunk.used_by, "chunk", from, false, chunk.cited_by));
}

/** A document the collection no longer holds: the store says whether it was removed (when,
 * why) or never here; the traces that used it stay, marked "source removed". */
function goneNotice(view, id, params, err) {
  const from = params.get("from");
  document.title = "Document not here · explaingraph";
  view.append(
    h("nav", { class: "crumbs", "aria-label": "Breadcrumb" }, h("a", { href: "#/" }, "Traces"), " › ",
      from ? h("a", { href: route("trace", from), class: "back" }, "the trace you came from") : h("span", {}, id)),
    h("h1", { tabindex: "-1", "data-autofocus": "" }, "This document is not in the collection"),
    h("div", { class: "notice", role: "status" },
      h("p", {}, err.message.charAt(0).toUpperCase() + err.message.slice(1) + "."),
      h("p", { class: "muted" }, h("code", {}, id))));
}

const WINDOW = 200; // chunks a page shows of a document too large for one reply

/** WINDOW chunks from ?offset= (else the first): [them, that offset], or [the hierarchy,
 * null] when no offset was asked and they are the whole document. The store reads a large
 * document's window alone, so one too large for a reply is never built whole. */
async function hierarchy(id, offset) {
  const at = Math.max(0, Number(offset) || 0);
  const data = await api.explain({ operation: "document-hierarchy", id, chunk_offset: at, chunk_limit: WINDOW });
  const whole = offset === null && (data.chunk_total ?? 0) <= WINDOW;
  return [data, whole ? null : at];
}

/** The whole document's counts as the librarian kept them while it was processed (pages,
 * chunks, edges: one request, nothing loaded), for a window's header; null when it has no
 * complete document of that id (then the header counts the window's). */
async function counted(id) {
  try {
    const info = (await api.librarian({ operation: "get-document-metadata", id })).document;
    return info && info.status === "complete" ? info : null;
  } catch {
    return null;
  }
}

/** "Chunks 201–400 of 25,255" with links to the windows before and after. */
function windowNav(doc, at, shown, total, from) {
  const link = (to, text) => h("a", { href: route("document", doc.id, { offset: to, from }) }, text);
  const n = (x) => x.toLocaleString("en");
  return h("nav", { class: "toc", "aria-label": "Chunks" },
    h("span", {}, shown ? `Chunks ${n(at + 1)}–${n(at + shown)} of ${n(total)}` : `No chunks here: the document has ${n(total)}`),
    at > 0 ? [" · ", link(Math.max(0, at - WINDOW), `‹ Previous ${WINDOW}`)] : null,
    at + shown < total ? [" · ", link(at + shown, `Next ${WINDOW} ›`)] : null);
}

export async function documentPage(view, id, params, live) {
  let data;
  let at; // the window's first chunk (null: the whole document)
  try {
    [data, at] = await hierarchy(id, params.get("offset"));
  } catch (err) {
    if (err.type !== "not-found") throw err;
    if (!live()) return;
    goneNotice(view, id, params, err);
    await foundElsewhere(view.querySelector(".notice p"), "document", id);
    return;
  }
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
  const whole = at === null ? null : await counted(doc.id);
  if (!live()) return;

  const crumbs = h("nav", { class: "crumbs", "aria-label": "Breadcrumb" }, h("a", { href: "#/" }, "Traces"), " › ");
  if (from) crumbs.append(h("a", { href: route("trace", from), class: "back" }, "the trace you came from"), " › ");
  crumbs.append(h("span", {}, title));
  view.append(crumbs,
    h("h1", { tabindex: "-1", "data-autofocus": wantPage || wantChunk ? null : "" }, title),
    h("p", { class: "meta" },
      doc.mime_type ? h("span", { class: "kind" }, doc.mime_type) : null, " ",
      h("code", {}, doc.id), " ",
      h("span", { class: "muted" }, at === null
        ? `${doc.pages.length} pages · ${chunks.length} chunks · ${edgeCount} edges extracted`
        : whole
          ? `${whole.pages} pages · ${data.chunk_total ?? whole.chunks} chunks · ${whole.edges} edges extracted (in these ${chunks.length} chunks: ${doc.pages.length} pages, ${edgeCount} edges)`
          : `${doc.pages.length} pages with chunks here · ${edgeCount} edges extracted from them`)));
  const download = h("button", { type: "button" }, "Download the original");
  const saving = h("span", { class: "muted", role: "status" });
  download.addEventListener("click", async () => {
    saving.textContent = " Fetching…";
    try {
      const blob = await api.original(doc.id, doc.mime_type);
      const link = h("a", { href: URL.createObjectURL(blob), download: doc.title || "document" });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      saving.textContent = "";
    } catch (err) {
      saving.textContent = ` ${err.message}`;
    }
  });
  view.append(h("p", { class: "actions" },
    from ? h("a", { href: route("trace", from), class: "button" }, "← Back to the trace") : null,
    " ", download, saving));

  const nav = at === null ? null : windowNav(doc, at, chunks.length, data.chunk_total ?? chunks.length, from);
  if (nav) view.append(nav);
  if (doc.pages.length) {
    view.append(h("nav", { class: "toc", "aria-label": "Pages" }, h("span", { class: "muted" }, "Pages: "),
      doc.pages.map((p) => h("a", { href: route("document", doc.id, { page: p.uri, from, offset: at }), "aria-current": p.uri === wantPage ? "true" : null }, String(p.number)))));
  }
  for (const page of doc.pages) {
    const marked = page.uri === wantPage;
    view.append(h("section", { class: `doc-page${marked ? " target" : ""}`, id: `page-${page.uri}`, "aria-labelledby": `pt-${page.uri}` },
      h("h2", { id: `pt-${page.uri}`, tabindex: "-1", "data-autofocus": marked && !wantChunk ? "" : null },
        `Page ${page.number}`,
        marked ? h("span", { class: "here" }, h("span", { "aria-hidden": "true" }, "◆ "), "the page the evidence came from") : null),
      usedBy(page.uri, page.used_by, "page", from, marked, page.cited_by),
      page.chunks.length ? page.chunks.map((c) => chunkArticle(c, texts[c.uri], c.uri === wantChunk, from)) : h("p", { class: "muted" }, "No chunks on this page.")));
  }
  if (doc.chunks.length) {
    view.append(h("section", { class: "doc-page" }, h("h2", {}, "Chunks"),
      doc.chunks.map((c) => chunkArticle(c, texts[c.uri], c.uri === wantChunk, from))));
  }
  if (nav) view.append(nav.cloneNode(true));
  if (wantChunk) {
    const heading = [...view.querySelectorAll("article.chunk h3")].find((el) => el.id === `ct-${wantChunk}`);
    if (heading) heading.setAttribute("data-autofocus", "");
  }
  view.addEventListener("shown", () => {
    const target = view.querySelector("[data-autofocus]");
    if (target) target.scrollIntoView({ block: "center" });
  }, { once: true });
}
