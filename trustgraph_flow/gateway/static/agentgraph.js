// An agent trace as a graph (SPEC.md, the agent graph): what each step used, as a picture.
// Nodes: the question, one row per step (tg:stepNumber) with its analysis on the left and
// its observation, or its tool calls side by side, to the right of it, and the conclusion.
// Each arrow is a prov:wasDerivedFrom ("uses"), from what was used to what used it; a step's
// own calls and observation hang from it. A step the answer does not rely on is a dead end.
//
// Drawn in plain SVG by hand (no library): an arrow between neighbouring rows is a curve; a
// longer one runs down a lane of the gutter on the left, lanes given out so that arrows
// over the same rows do not share one (up to MAX_LANES; past that they share the outermost).

import { clear, cut, h, route, s } from "./dom.js";

export const TREE_KEYS = "Click a row, or use ↑ ↓ to move, → ← to open and close, Enter or Space to toggle.";
const GRAPH_KEYS = "Click a box to see it beside the picture (Tab and Enter too); drag or scroll to move around. An arrow goes from what was used to what used it.";
const W = 232, H = 44, GAP_X = 30, ROW = H + 34, LANE = 7, MAX_LANES = 24, LABEL = 34, PAD = 12;

/** Whether agent trace ``view`` ended in a run that failed after it began: a conclusion with
 * no answer, saying why (docs/provenance.md, "A run that failed"): failed, with ``uses``. */
export function failedEnding(view) {
  return view.status === "failed" && (view.answer === null || view.answer === undefined) &&
    (view.uses || []).length > 0;
}

/** The graph of agent trace ``view`` (its TraceView JSON): nodes with a row and column, and
 * edges {from, to, own} between node keys (``own``: a step to its own calls or observation). */
export function agentGraphOf(view) {
  const nodes = new Map();
  const add = (key, n) => nodes.set(key, { key, reveal: key, dead: false, ...n });
  add(view.id, { kind: "question", row: 0, col: 0, title: "Question", text: view.question || "" });
  const steps = [...(view.steps || [])].sort((a, b) => a.index - b.index);
  steps.forEach((step, i) => {
    const dead = step.used === false;
    add(step.uri, {
      kind: "step", row: i + 1, col: 0, dead, index: step.index,
      title: `Step ${step.index}${step.action ? ` · ${step.action}` : ""}`, text: step.thought || "",
    });
    (step.calls || []).forEach((call, k) => add(call.uri, {
      kind: "call", row: i + 1, col: k + 1, dead: call.used === false,
      title: `Call ${k + 1} · ${call.action}`, text: call.observation ?? "(not yet known)",
    }));
    if (!(step.calls || []).length && step.observation !== null && step.observation !== undefined) {
      add(`${step.uri}/observation`, {
        kind: "observation", row: i + 1, col: 1, dead, reveal: step.uri,
        title: "Observation", text: step.observation,
      });
    }
  });
  const final = `${view.id}/final`;
  if (view.answer !== null && view.answer !== undefined) {
    add(final, { kind: "conclusion", row: steps.length + 1, col: 0, title: "Conclusion", text: view.answer });
  } else if (failedEnding(view)) {
    add(final, {
      kind: "conclusion failed", row: steps.length + 1, col: 0, title: "Conclusion · error", text: view.error || "",
    });
  }

  // The node an entity named in a "uses" is drawn as: a call's observation is its call's node;
  // a step's observation its own node (or the step, where it called several tools).
  const nodeOf = (uri) => {
    if (nodes.has(uri)) return uri;
    if (uri.endsWith("/observation") && nodes.has(uri.slice(0, -"/observation".length))) {
      return uri.slice(0, -"/observation".length);
    }
    return null;
  };
  const edges = new Map();
  const link = (used, user, own) => {
    const from = nodeOf(used);
    if (from && from !== user) edges.set(`${from} ${user}`, { from, to: user, own });
  };
  for (const step of steps) {
    for (const uri of step.uses || []) link(uri, step.uri, false);
    for (const call of step.calls || []) link(step.uri, call.uri, true);
    if (nodes.has(`${step.uri}/observation`)) link(step.uri, `${step.uri}/observation`, true);
  }
  if (nodes.has(final)) for (const uri of view.uses || []) link(uri, final, false);
  const outside = steps.flatMap((st) => st.uses || []).filter((u) => !nodeOf(u)).length;
  return { nodes: [...nodes.values()], edges: [...edges.values()], outside };
}

/** Lanes of the gutter for the edges that skip rows, greedily by first row (interval
 * colouring): edge → lane number, and how many lanes there are. */
function lanes(long, row) {
  const ends = []; // per lane: the last row it is busy to
  const lane = new Map();
  const spans = long.map((e) => [e, row(e.from), row(e.to)]).sort((a, b) => a[1] - b[1] || a[2] - b[2]);
  for (const [e, top, bottom] of spans) {
    let k = ends.findIndex((end) => end <= top);
    if (k < 0 && ends.length < MAX_LANES) k = ends.push(0) - 1;
    if (k < 0) k = MAX_LANES - 1;
    ends[k] = Math.max(ends[k], bottom);
    lane.set(e, k);
  }
  return { lane, count: ends.length };
}

function edgePath(a, b, e, laneX) {
  const ax = a.x + W / 2, bx = b.x + W / 2;
  if (e.own) { // a step to its call k: over the top of the calls before it
    if (b.col === 1) return `M${a.x + W},${a.y + H / 2} L${b.x},${b.y + H / 2}`;
    return `M${a.x + W - 14},${a.y} C${a.x + W},${a.y - 24} ${bx},${b.y - 24} ${bx},${b.y}`;
  }
  if (b.row === a.row + 1) {
    const mid = (a.y + H + b.y) / 2;
    return `M${ax},${a.y + H} C${ax},${mid} ${bx},${mid} ${bx},${b.y}`;
  }
  const ty = b.y + H / 2;
  if (a.col === 0) return `M${a.x},${a.y + H / 2} H${laneX} V${ty} H${b.x}`;
  const below = a.y + H + 10;
  return `M${ax},${a.y + H} V${below} H${laneX} V${ty} H${b.x}`;
}

/** The picture: {el, select(key)}; ``onPick(treeKey)`` when a node is clicked or activated. */
export function agentGraphSvg(view, onPick) {
  const graph = agentGraphOf(view);
  const byKey = new Map(graph.nodes.map((n) => [n.key, n]));
  const long = graph.edges.filter((e) => !e.own && byKey.get(e.to).row - byKey.get(e.from).row !== 1);
  const { lane, count } = lanes(long, (k) => byKey.get(k).row);
  const gutter = PAD + count * LANE + 10;
  let width = 0, height = 0;
  for (const n of graph.nodes) {
    n.x = gutter + n.col * (W + GAP_X);
    n.y = PAD + n.row * ROW;
    width = Math.max(width, n.x + W + PAD);
    height = Math.max(height, n.y + H + PAD);
  }
  const svg = s("svg", {
    class: "agent-graph", width, height, viewBox: `0 0 ${width} ${height}`, role: "group",
    "aria-label": "The agent's steps as a graph: each arrow goes from what a step used to the step",
  });
  svg.append(s("defs", {}, s("marker", {
    id: "dag-arrow", viewBox: "0 0 8 8", refX: 8, refY: 4, markerWidth: 7, markerHeight: 7, orient: "auto",
  }, s("path", { d: "M0,0 L8,4 L0,8 z" }))));
  const wires = s("g", { class: "wires", "aria-hidden": "true" });
  for (const e of graph.edges) {
    const a = byKey.get(e.from), b = byKey.get(e.to);
    const k = lane.get(e);
    const laneX = k === undefined ? 0 : gutter - 10 - k * LANE;
    const dead = a.dead || b.dead;
    wires.append(s("path", {
      class: `dag-edge${e.own ? " own" : ""}${dead ? " dead-end" : ""}`, d: edgePath(a, b, e, laneX),
      "data-from": e.from, "data-to": e.to, "marker-end": "url(#dag-arrow)",
    }));
  }
  const boxes = s("g", { class: "nodes" });
  for (const n of graph.nodes) {
    const full = `${n.title}: ${n.text}${n.dead ? " (a dead end: the answer does not rely on it)" : ""}`;
    const g = s("g", {
      class: `dag-node ${n.kind}${n.dead ? " dead-end" : ""}`, tabindex: "0", role: "button",
      "data-key": n.key, "data-row": n.row, "data-col": n.col, "aria-label": cut(full, 200),
    },
    s("title", {}, full),
    s("rect", { x: n.x, y: n.y, width: W, height: H, rx: 6 }),
    s("text", { x: n.x + 9, y: n.y + 17, class: "head" }, cut(n.title, n.dead ? LABEL - 12 : LABEL)),
    s("text", { x: n.x + 9, y: n.y + 34 }, cut(n.text, LABEL + 2)));
    if (n.dead) g.append(s("text", { x: n.x + W - 8, y: n.y + 15, class: "tag", "text-anchor": "end" }, "dead end"));
    boxes.append(g);
  }
  svg.append(wires, boxes);
  const el = document.createElement("div");
  el.className = "agent-graph-wrap";
  el.append(svg);
  let picked = null; // the node clicked: an observation shows its step, and stays the one marked
  const pick = (target) => {
    const g = target.closest(".dag-node");
    if (!g) return;
    picked = g.dataset.key;
    onPick(byKey.get(picked).reveal);
  };
  svg.addEventListener("click", (e) => pick(e.target));
  svg.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    e.preventDefault();
    pick(e.target);
  });
  pan(el);
  let selected = null;
  const select = (key) => { // and scroll it into view if it is not
    if (selected) selected.classList.remove("selected");
    if (picked && byKey.get(picked).reveal === key) key = picked;
    picked = null;
    const n = byKey.get(key);
    selected = n ? boxes.querySelector(`.dag-node[data-key="${CSS.escape(key)}"]`) : null;
    if (!selected) return;
    selected.classList.add("selected");
    if (n.y < el.scrollTop || n.y + H > el.scrollTop + el.clientHeight) el.scrollTop = n.y - el.clientHeight / 3;
    if (n.x < el.scrollLeft || n.x + W > el.scrollLeft + el.clientWidth) el.scrollLeft = n.x - gutter;
  };
  return { el, select };
}

/** The "Show as: Tree | Graph" switch of an agent trace's steps: ``left`` holds the tree or
 * the picture (drawn when first asked for); a click on the picture selects in the tree, whose
 * details panel shows it. ``hint`` says how to move in the one shown; ``graph`` to start with the picture. */
export function graphSwitch(view, tree, left, hint, graph) {
  let picture = null, showing = false;
  const buttons = ["Tree", "Graph"].map((label) => h("button", { type: "button", class: "tab" }, label));
  const show = (on) => {
    if (on && !picture) {
      picture = agentGraphSvg(view, (key) => tree.reveal(key, false));
      const total = view.step_total ?? view.steps.length;
      if (total > view.steps.length) {
        picture.el.prepend(h("p", { class: "notice" }, `Drawn from the first ${view.steps.length.toLocaleString()} of ${total.toLocaleString()} steps; the tree has them all.`));
      }
    }
    showing = on;
    buttons.forEach((b, i) => b.setAttribute("aria-pressed", String(Boolean(i) === on)));
    clear(left).append(on ? picture.el : tree.el);
    hint.textContent = on ? GRAPH_KEYS : TREE_KEYS;
    if (on && tree.selected) picture.select(tree.selected.key);
    if (!on) tree.render();
  };
  buttons.forEach((b, i) => b.addEventListener("click", () => {
    show(Boolean(i));
    history.replaceState(null, "", route("trace", view.id, { node: tree.selected?.key, show: showing ? "graph" : null }));
  }));
  show(graph);
  return {
    bar: h("p", { class: "view-switch", role: "group", "aria-label": "Show the steps as" }, "Show as ", ...buttons),
    select: (key) => picture?.select(key),
    showing: () => showing,
  };
}

/** Drag the background to pan the scrolling box (the wheel and scroll bars scroll it too). */
function pan(el) {
  let from = null;
  el.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 || e.target.closest(".dag-node")) return;
    from = [e.clientX, e.clientY, el.scrollLeft, el.scrollTop];
    el.setPointerCapture(e.pointerId);
    el.classList.add("panning");
  });
  el.addEventListener("pointermove", (e) => {
    if (!from) return;
    el.scrollLeft = from[2] - (e.clientX - from[0]);
    el.scrollTop = from[3] - (e.clientY - from[1]);
  });
  const stop = () => {
    from = null;
    el.classList.remove("panning");
  };
  el.addEventListener("pointerup", stop);
  el.addEventListener("pointercancel", stop);
}
