// The Traces page: every top-level trace, newest first, filtered and paged by cursor.

import * as api from "./api.js";
import { cut, h, route, statusBadge, typeBadge, when } from "./dom.js";

const PAGE = 50;
const LISTING_WAIT = 2000; // ms for the user's collections (trustgraph_base.bounds.LISTING_WAIT)
const cursors = []; // cursors of the pages before the current one (for "Newer")

function toIso(local) {
  if (!local) return "";
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? "" : d.toISOString();
}

function toLocal(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function select(name, label, options, value) {
  return h("div", { class: "field" },
    h("label", { for: `f-${name}` }, label),
    h("select", { id: `f-${name}`, name },
      options.map(([v, text]) => h("option", { value: v, selected: v === value }, text))));
}

function filters(params) {
  const form = h("form", { class: "filters", role: "search", "aria-label": "Filter traces" },
    h("div", { class: "field grow" },
      h("label", { for: "f-q" }, "Question contains"),
      h("input", { id: "f-q", name: "q", type: "search", value: params.get("q") || "", placeholder: "e.g. capital of France" })),
    select("type", "Type", [["", "Any type"], ["agent", "Agent"], ["graph-rag", "GraphRAG"], ["document-rag", "DocRAG"]], params.get("type") || ""),
    select("status", "Status", [["", "Any status"], ["complete", "Complete"], ["in-progress", "In progress"], ["failed", "Failed"], ["interrupted", "Interrupted"]], params.get("status") || ""),
    h("div", { class: "field" },
      h("label", { for: "f-since" }, "From"),
      h("input", { id: "f-since", name: "since", type: "datetime-local", value: toLocal(params.get("since")) })),
    h("div", { class: "field" },
      h("label", { for: "f-until" }, "To"),
      h("input", { id: "f-until", name: "until", type: "datetime-local", value: toLocal(params.get("until")) })),
    h("div", { class: "field actions" },
      h("button", { type: "submit", class: "primary" }, "Search"),
      h("a", { href: "#/", class: "button" }, "Clear")));
  const to = form.querySelector("#f-until");
  form.addEventListener("input", () => to.setCustomValidity(""));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const since = toIso(data.get("since"));
    const until = toIso(data.get("until"));
    // the dates swapped: said at the field (the store would refuse the window)
    if (since && until && since > until) {
      to.setCustomValidity("To is before From: the window holds no time");
      to.reportValidity();
      return;
    }
    cursors.length = 0;
    location.hash = route("traces", "", {
      compare: params.get("compare"),
      q: data.get("q").trim(), type: data.get("type"), status: data.get("status"), since, until,
    });
  });
  return form;
}

/** A collection the user does not have (a mistyped ?collection=) is said to be none, naming
 * the user's, each a link, as the commands say it; the list needs the librarian, so it is
 * waited for LISTING_WAIT at most (then, or when a shard did not answer, "No traces yet"
 * stands). Never asked for the default collection, which every user has. */
async function noSuchCollection(box, live) {
  const here = api.currentCollection();
  if (here === "default") return;
  const wait = new Promise((resolve) => { setTimeout(() => resolve(null), LISTING_WAIT); });
  const listed = await Promise.race([api.listing().catch(() => null), wait]);
  if (!listed || !live() || listed.unreachable.length || listed.names.includes(here)) return;
  const links = listed.names.map((name) => {
    const query = new URLSearchParams(location.search);
    query.set("collection", name);
    return h("a", { href: `?${query}#/` }, name);
  });
  box.replaceChildren(`There is no collection “${here}”`,
    ...(links.length ? [": yours are ", ...links.flatMap((a, i) => (i ? [", ", a] : [a]))] : []),
    " (tg-list-collections).");
  box.classList.add("missing");
}

export async function tracesPage(view, params, live) {
  const after = params.get("after") || null;
  const request = { operation: "list-traces", limit: PAGE };
  if (after) request.cursor = after;
  for (const [name, field] of [["q", "search"], ["type", "type"], ["status", "status"], ["since", "since"], ["until", "until"]]) {
    if (params.get(name)) request[field] = params.get(name);
  }
  const data = await api.explain(request);
  if (!live()) return;
  const traces = data.traces || [];
  const comparing = params.get("compare");
  const filtered = ["q", "type", "status", "since", "until"].some((k) => params.get(k));
  view.append(
    h("h1", {}, "Traces"),
    h("p", { class: "lede" }, "Every question answered here, newest first. Open one to see how its answer was reached and which pages it came from."),
    filters(params));
  if (comparing) {
    view.append(h("p", { class: "notice picking", role: "status" },
      "Pick the answer to compare with: each row has a “Compare” link. ",
      h("a", { href: route("trace", comparing) }, "Cancel")));
  }
  if (!traces.length) {
    const empty = h("p", { class: "empty" }, filtered
      ? "No trace matches these filters."
      : "No traces yet. Ask a question (tg-invoke-agent -q \"…\") and it appears here.");
    view.append(empty);
    if (!filtered && !after) await noSuchCollection(empty, live);
  } else {
    const rows = traces.map((t) => h("tr", {},
      h("td", {}, statusBadge(t.status)),
      h("td", {}, typeBadge(t.type)),
      h("td", { class: "question" }, h("a", { href: route("trace", t.id) }, cut(t.question, 160) || "(no question text)")),
      h("td", { class: "time" }, h("time", { datetime: t.time, title: t.time }, when(t.time))),
      comparing ? h("td", {}, t.id === comparing ? h("span", { class: "muted" }, "(this one)")
        : h("a", { href: route("compare", "", { a: comparing, b: t.id }), class: "button", "aria-label": `Compare with: ${cut(t.question, 80)}` }, "Compare")) : null));
    view.append(h("table", { class: "traces" },
      h("caption", { class: "visually-hidden" }, "Traces, newest first"),
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "Status"), h("th", { scope: "col" }, "Type"),
        h("th", { scope: "col" }, "Question"), h("th", { scope: "col" }, "Time"),
        comparing ? h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Compare")) : null)),
      h("tbody", {}, rows)));
  }
  const base = Object.fromEntries([...params.entries()].filter(([k]) => k !== "after"));
  const pager = h("nav", { class: "pager", "aria-label": "Pages" });
  const page = cursors.length + (after ? 1 : 0) + 1;
  if (after) {
    const newer = h("button", { type: "button" }, "← Newer");
    newer.addEventListener("click", () => {
      const previous = cursors.pop() || "";
      location.hash = route("traces", "", { ...base, after: previous });
    });
    pager.append(newer);
  }
  pager.append(h("span", { class: "page-no" }, `Page ${page}`));
  if (data.cursor) {
    const older = h("button", { type: "button" }, "Older →");
    older.addEventListener("click", () => {
      if (after) cursors.push(after);
      location.hash = route("traces", "", { ...base, after: data.cursor });
    });
    pager.append(older);
  }
  view.append(pager);
}
