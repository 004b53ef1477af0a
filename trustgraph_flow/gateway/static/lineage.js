// The lineage picture: answer → selected edges → chunks → pages → documents, as inline SVG
// drawn with DOM calls (every label a text node). Each box is a link.

import { cut, edgeText, h, route, s } from "./dom.js";

const COLUMNS = ["Answer", "Edges", "Chunks", "Pages", "Documents"];
const MAX_PER_COLUMN = 10;
const BOX_W = 212, BOX_H = 34, GAP_X = 40, GAP_Y = 10, HEAD = 28;
const LABEL = 29; // characters that fit a box

/** Walk a trace and its sub-traces: the nodes of each column and the links between them. */
export function lineageOf(view, traceId) {
  const cols = COLUMNS.map(() => new Map());
  const links = new Set();
  const cited = new Set(); // links from the answer to evidence it cites (the rest: given, not cited)
  const answerKey = "answer";
  cols[0].set(answerKey, {
    label: view.answer ? cut(view.answer, LABEL) : "(no answer yet)",
    full: view.answer || "", href: route("trace", traceId, { node: answerNode(view) }),
  });
  const addSource = (fromCol, fromKey, ref, citedChunk) => {
    const chunkKey = ref.chunk;
    const docHref = (params) => route("document", ref.document, { ...params, from: traceId });
    const title = ref.title || ref.document;
    const where = ref.page ? `p.${ref.page_number ?? "?"}` : title;
    const index = ref.chunk_index ?? "?";
    cols[2].set(chunkKey, {
      label: cut(`chunk ${index} · ${where}`, LABEL), full: `${title}: ${ref.page ? `page ${ref.page_number}, ` : ""}chunk ${index}${citedChunk ? " (cited by the answer)" : ""}`,
      href: docHref({ chunk: ref.chunk, page: ref.page }), sort: [title, ref.page_number ?? 0, ref.chunk_index ?? 0],
      cited: citedChunk === undefined ? undefined : citedChunk,
    });
    links.add(`${fromCol}|${fromKey}|2|${chunkKey}`);
    if (citedChunk) cited.add(`${fromCol}|${fromKey}|2|${chunkKey}`);
    if (ref.page) {
      cols[3].set(ref.page, {
        label: cut(`page ${ref.page_number ?? "?"} · ${title}`, LABEL), full: `${title}, page ${ref.page_number}`,
        href: docHref({ page: ref.page }), sort: [title, ref.page_number ?? 0],
      });
      links.add(`2|${chunkKey}|3|${ref.page}`);
      links.add(`3|${ref.page}|4|${ref.document}`);
    } else {
      links.add(`2|${chunkKey}|4|${ref.document}`);
    }
    cols[4].set(ref.document, { label: cut(title, LABEL), full: title, href: docHref({}), sort: [title] });
  };
  const walk = (v) => {
    for (const edge of v.edges || []) {
      const key = edge.uri || edgeText(edge);
      cols[1].set(key, { label: cut(edgeText(edge), LABEL), full: edgeText(edge) + (edge.cited ? " (cited by the answer)" : " (given to the answer, not cited)"), href: route("trace", traceId, { node: key }), cited: !!edge.cited });
      links.add(`0|${answerKey}|1|${key}`);
      if (edge.cited) cited.add(`0|${answerKey}|1|${key}`);
      for (const ref of edge.sources || []) addSource(1, key, ref);
    }
    for (const chunk of v.chunks || []) {
      if (!chunk.sources || !chunk.sources.length) {
        cols[2].set(chunk.uri, { label: cut(chunk.uri.split("/").pop(), LABEL), full: chunk.uri, href: route("trace", traceId, { node: chunk.uri }), cited: !!chunk.cited });
        links.add(`0|${answerKey}|2|${chunk.uri}`);
        if (chunk.cited) cited.add(`0|${answerKey}|2|${chunk.uri}`);
      }
      for (const ref of chunk.sources || []) addSource(0, answerKey, ref, !!chunk.cited);
    }
    for (const step of v.steps || []) for (const sub of step.subtraces || []) walk(sub);
  };
  walk(view);
  return { cols, links, cited };
}

function answerNode(view) {
  if (view.type === "agent") return `${view.id}/final`;
  return view.synthesis || view.id;
}

/** The picture, or null when the trace used no recorded evidence. */
export function lineageSvg(view, traceId) {
  const found = lineageOf(view, traceId);
  if (found.cols.slice(1).every((c) => c.size === 0)) return null;
  // Columns with nothing in them (no edges for DocumentRAG, no pages for plain text) are left out.
  const keep = found.cols.map((c, i) => i === 0 || c.size > 0);
  const names = COLUMNS.filter((_, i) => keep[i]);
  const cols = found.cols.filter((_, i) => keep[i]);
  const renumber = new Map(found.cols.map((_, i) => [String(i), String(keep.slice(0, i).filter(Boolean).length)]));
  const renamed = (l) => {
    const [fc, fk, tc, tk] = l.split("|");
    return `${renumber.get(fc)}|${fk}|${renumber.get(tc)}|${tk}`;
  };
  const links = [...found.links].map(renamed);
  const citedLinks = new Set([...found.cited].map(renamed));
  const order = (a, b) => compare(a[1].sort || [], b[1].sort || []);
  const shown = cols.map((col, c) => [...col.entries()].sort(c === 0 ? () => 0 : order).slice(0, MAX_PER_COLUMN));
  const extra = cols.map((col) => Math.max(0, col.size - MAX_PER_COLUMN));
  const rows = Math.max(...shown.map((c, i) => c.length + (extra[i] ? 1 : 0)));
  const width = names.length * BOX_W + (names.length - 1) * GAP_X;
  const height = HEAD + rows * (BOX_H + GAP_Y);
  const pos = new Map();
  const x = (c) => c * (BOX_W + GAP_X);
  shown.forEach((col, c) => col.forEach(([key], r) => pos.set(`${c}|${key}`, [x(c), HEAD + r * (BOX_H + GAP_Y)])));
  const svg = s("svg", {
    class: "lineage", viewBox: `-2 -2 ${width + 4} ${height + 4}`, width: width + 4, height: height + 4, role: "group",
    "aria-label": "Lineage: the answer, the edges it used, and the chunks, pages and documents they came from",
  });
  names.forEach((name, c) => {
    const count = cols[c].size;
    svg.append(s("text", { x: x(c) + 4, y: 16, class: "col-head" }, c === 0 ? name : `${name} (${count})`));
  });
  const wires = s("g", { class: "wires", "aria-hidden": "true" });
  svg.append(wires);
  for (const link of links) {
    const [fc, fk, tc, tk] = link.split("|");
    const a = pos.get(`${fc}|${fk}`), b = pos.get(`${tc}|${tk}`);
    if (!a || !b) continue;
    const x1 = a[0] + BOX_W, y1 = a[1] + BOX_H / 2, x2 = b[0], y2 = b[1] + BOX_H / 2;
    const mid = (x1 + x2) / 2;
    const fromAnswer = fc === "0";
    const kind = !fromAnswer ? "" : citedLinks.has(link) ? "cited" : "uncited";
    wires.append(s("path", { d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`, class: kind }));
  }
  shown.forEach((col, c) => {
    col.forEach(([key, node]) => {
      const [bx, by] = pos.get(`${c}|${key}`);
      const standing = node.cited === true ? " cited" : node.cited === false ? " uncited" : "";
      const box = s("a", { href: node.href, class: `box box-${names[c].toLowerCase()}${standing}`, "data-key": key },
        s("title", {}, node.full || node.label),
        s("rect", { x: bx, y: by, width: BOX_W, height: BOX_H, rx: 6 }),
        s("text", { x: bx + 10, y: by + BOX_H / 2 + 5 }, node.label));
      if (node.cited) box.append(s("text", { x: bx + BOX_W - 16, y: by + 13, class: "star" }, "★"));
      svg.append(box);
    });
    if (extra[c]) {
      const by = HEAD + col.length * (BOX_H + GAP_Y);
      svg.append(s("text", { x: x(c) + 10, y: by + BOX_H / 2 + 5, class: "more" }, `+ ${extra[c]} more (see the tree)`));
    }
  });
  const legend = found.cited.size || [...found.cols[1].values(), ...found.cols[2].values()].some((n) => n.cited === false)
    ? h("p", { class: "muted lineage-legend" }, "★ and a solid line: cited by the answer. Dashed: given to the answer (retrieved and selected) but not cited.")
    : null;
  return h("div", { class: "lineage-wrap" }, svg, legend);
}

function compare(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === b[i]) continue;
    if (a[i] === undefined) return -1;
    if (b[i] === undefined) return 1;
    return typeof a[i] === "number" && typeof b[i] === "number" ? a[i] - b[i] : String(a[i]).localeCompare(String(b[i]));
  }
  return 0;
}
