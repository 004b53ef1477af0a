// The makers of a trace tree's rows, shared by an agent trace's (tracetree.js) and a RAG
// trace's (ragrows.js): a row, a field of its details panel, and a stage with its cost.

import { h, metricsText } from "./dom.js";

export function node(key, title, summary, extra) {
  return { key, title, summary, badges: [], children: null, expanded: false, fields: [], ...extra };
}

export function metricBadge(m) {
  const text = metricsText(m);
  return text ? h("span", { class: "metric" }, text.replace(/^model /, "")) : null;
}

export function field(label, value, opts) {
  return { label, value, ...(opts || {}) };
}

export function stage(view, key, uri, title, summary, fields) {
  const m = view.metrics?.[key];
  return node(uri, title, summary, {
    kind: "stage", badges: [metricBadge(m)],
    fields: [...fields, m ? field("Cost", metricsText(m)) : null, field("URI", uri, { code: true })],
  });
}
