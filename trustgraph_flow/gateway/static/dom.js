// DOM helpers. Stored text only ever reaches the page as text nodes (never innerHTML).

const SVG_NS = "http://www.w3.org/2000/svg";

function build(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else {
      el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** h("a", {href: "#/"}, "text", child…): an element; strings become text nodes. */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** The same for SVG elements. */
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

/** A hash route: route("trace", id, {node: x}) → "#/trace/<id>?node=x". */
export function route(page, id, params) {
  let out = `#/${page}`;
  if (id) out += `/${encodeURIComponent(id)}`;
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== null && v !== undefined && v !== "") query.set(k, v);
  }
  const q = query.toString();
  return q ? `${out}?${q}` : out;
}

/** The current hash as {page, id, params}. */
export function parseRoute(hash) {
  const text = (hash || "").replace(/^#\/?/, "");
  const [path, query] = text.split("?", 2);
  const [page, ...rest] = path.split("/");
  let id = rest.join("/");
  try {
    id = decodeURIComponent(id);
  } catch {
    id = "";
  }
  return { page: page || "traces", id, params: new URLSearchParams(query || "") };
}

export function cut(text, max) {
  if (!text) return "";
  const one = String(text).replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, {
    year: "numeric", month: "short", day: "numeric",
    hour: "2-digit", minute: "2-digit", second: "2-digit",
  });
}

export const TYPE_NAMES = { "agent": "Agent", "graph-rag": "GraphRAG", "document-rag": "DocRAG" };

const STATUS = {
  "complete": ["✓", "Complete"],
  "in-progress": ["◔", "In progress"],
  "failed": ["✕", "Failed"],
  "interrupted": ["⊘", "Interrupted"],
};

/** A status badge: an icon and a word, never colour alone. */
export function statusBadge(status) {
  const [icon, word] = STATUS[status] || ["?", status];
  return h("span", { class: `status status-${status}` },
    h("span", { class: "icon", "aria-hidden": "true" }, icon), word);
}

export function typeBadge(type) {
  return h("span", { class: `kind kind-${type}` }, TYPE_NAMES[type] || type);
}

/** The words of an RDF term from the wire ({t:"i",i} / {t:"l",v} …). */
/** The label an entity or relation URI was minted from (its label may have gone with its
 * document), as trustgraph_base.provenance.uris.minted_label reads it; null for other URIs. */
export function mintedLabel(uri) {
  const m = /^urn:trustgraph:(entity|rel):(.+)$/.exec(uri);
  if (!m) return null;
  let text = m[2];
  try { text = decodeURIComponent(text); } catch { /* a malformed escape: shown as it is */ }
  return text.replace(/_/g, " ");
}

export function termText(term, label) {
  if (label) return label;
  if (!term) return "";
  if (term.t === "i") return mintedLabel(term.i) ?? term.i;
  if (term.t === "l") return term.v;
  if (term.t === "b") return `_:${term.d}`;
  if (term.t === "t" && term.tr) return `<< ${termText(term.tr.s)} ${termText(term.tr.p)} ${termText(term.tr.o)} >>`;
  return JSON.stringify(term);
}

export function edgeText(edge) {
  return [termText(edge.s, edge.s_label), termText(edge.p, edge.p_label), termText(edge.o, edge.o_label)].join(" → ");
}

export function metricsText(m) {
  if (!m) return "";
  const parts = [];
  if (m.model) parts.push(`model ${m.model}`);
  if (m.in_token !== null && m.in_token !== undefined || m.out_token !== null && m.out_token !== undefined) {
    parts.push(`tokens ${m.in_token ?? "?"} in / ${m.out_token ?? "?"} out`);
  }
  if (m.latency_ms !== null && m.latency_ms !== undefined) parts.push(`${Math.round(m.latency_ms)} ms`);
  return parts.join(", ");
}

export function sourceText(ref) {
  const parts = [];
  if (ref.chunk_index !== null && ref.chunk_index !== undefined) parts.push(`chunk ${ref.chunk_index}`);
  if (ref.page_number !== null && ref.page_number !== undefined) parts.push(`page ${ref.page_number}`);
  parts.push(ref.title ? `“${ref.title}”` : ref.document);
  return parts.join(" · ");
}

// A retrieved chunk's figures as [label, badge, detail]: its similarity to the question and,
// from a hybrid retrieval only, its place in the vector search and its word (BM25) score, as
// tg-show-explain-trace shows them ("Vector rank", "Word score"); none when not recorded.
export function chunkFigures(c) {
  const has = (v) => v !== null && v !== undefined;
  const hybrid = has(c.vector_rank) || has(c.lexical_score);
  const order = hybrid ? "chunks listed by the fused rank of both searches" : "chunks listed by relevance";
  const out = [];
  if (has(c.score)) out.push(["Score", `score ${c.score.toFixed(3)}`, `${c.score.toFixed(3)} (similarity to the question; ${order})`]);
  if (has(c.vector_rank)) out.push(["Vector rank", `vector #${c.vector_rank}`, `${c.vector_rank} (its place in the vector search)`]);
  if (has(c.lexical_score)) out.push(["Word score", `words ${c.lexical_score.toFixed(3)}`, `${c.lexical_score.toFixed(3)} (the question's words in it, BM25)`]);
  return out;
}
