// A trace as the rows of its tree: the trace itself, and an agent trace's steps, their tool
// calls and the sub-traces those ran (a RAG trace's rows are ragrows.js). Steps not yet
// fetched are placeholders.

import { failedEnding } from "./agentgraph.js";
import { TYPE_NAMES, cut, h, metricsText, statusBadge, when } from "./dom.js";
import { ragChildren } from "./ragrows.js";
import { field, metricBadge, node, stage } from "./tracerows.js";

const SMALL = 30; // an agent trace this short opens with its sub-traces expanded

function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function traceNode(view, sub) {
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

export function stepNode(view, step) {
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
