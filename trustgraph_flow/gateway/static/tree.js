// A virtualised, keyboard-operable tree (WAI-ARIA treeview): only the rows in view are in
// the DOM, so a 20,000-step trace scrolls as lightly as a 10-step one.
//
// A node is {key, title, summary, badges: [Node|string], children: [node] | null,
// expanded, placeholder}. A placeholder stands for a node not yet fetched: when it is
// in view when scrolling pauses, onNeed(node) is called so the page can fetch and replace it.

import { clear, h } from "./dom.js";

const ROW = 34; // px; keep in step with .tree .row in app.css
const OVERSCAN = 12;
const NEED_DELAY = 120; // ms of no scrolling before placeholders in view are fetched

export class VirtualTree {
  constructor({ label, onSelect, onNeed }) {
    this.onSelect = onSelect || (() => {});
    this.onNeed = onNeed || (() => {});
    this.roots = [];
    this.rows = [];
    this.byKey = new Map();
    this.selected = null;
    this.focusIndex = 0;
    this.waiting = [];
    this.needTimer = 0;
    this.frame = 0;
    this.layer = h("div", { class: "rows", role: "tree", "aria-label": label });
    this.spacer = h("div", { class: "spacer" }, this.layer);
    this.el = h("div", { class: "tree" }, this.spacer);
    this.el.addEventListener("scroll", () => this.schedule());
    this.layer.addEventListener("keydown", (e) => this.key(e));
    this.layer.addEventListener("click", (e) => this.click(e));
    new ResizeObserver(() => this.schedule()).observe(this.el);
  }

  setRoots(roots) {
    this.roots = roots;
    this.index();
    this.refresh();
  }

  /** Re-index after nodes were replaced (e.g. a window of steps arrived). */
  index() {
    this.byKey.clear();
    const walk = (node, parent, depth) => {
      node.parent = parent;
      node.depth = depth;
      this.byKey.set(node.key, node);
      for (const child of node.children || []) walk(child, node, depth + 1);
    };
    for (const root of this.roots) walk(root, null, 0);
  }

  refresh() {
    const rows = [];
    const walk = (node) => {
      rows.push(node);
      if (node.expanded && node.children) for (const child of node.children) walk(child);
    };
    for (const root of this.roots) walk(root);
    this.rows = rows;
    this.spacer.style.height = `${rows.length * ROW}px`;
    this.el.style.height = `${Math.max(4, rows.length) * ROW + 2}px`; // capped by max-height in CSS
    this.focusIndex = Math.min(this.focusIndex, Math.max(0, rows.length - 1));
    this.render();
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  render() {
    const hadFocus = this.layer.contains(document.activeElement);
    const top = this.el.scrollTop;
    const height = this.el.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const last = Math.min(this.rows.length, Math.ceil((top + height) / ROW) + OVERSCAN);
    const indexes = [];
    for (let i = first; i < last; i++) indexes.push(i);
    if (this.rows.length && (this.focusIndex < first || this.focusIndex >= last)) indexes.push(this.focusIndex);
    clear(this.layer);
    this.waiting = [];
    for (const i of indexes) this.layer.append(this.row(this.rows[i], i));
    if (hadFocus) this.focusRow(false);
    // Placeholders are asked for once scrolling pauses, so a fast scroll past thousands
    // of unfetched steps asks only for the ones it stops at.
    clearTimeout(this.needTimer);
    if (this.waiting.length) {
      const waiting = this.waiting;
      this.needTimer = setTimeout(() => waiting.forEach((n) => this.onNeed(n)), NEED_DELAY);
    }
  }

  row(node, i) {
    const expandable = Boolean(node.children && node.children.length);
    const el = h("div", {
      class: `row${node === this.selected ? " selected" : ""}${node.placeholder ? " placeholder" : ""}`,
      role: "treeitem",
      "aria-level": node.depth + 1,
      "aria-expanded": expandable ? String(Boolean(node.expanded)) : null,
      "aria-selected": String(node === this.selected),
      "aria-setsize": (node.parent ? node.parent.children : this.roots).length,
      "aria-posinset": (node.parent ? node.parent.children : this.roots).indexOf(node) + 1,
      tabindex: i === this.focusIndex ? "0" : "-1",
      "data-index": i,
      "data-key": node.key,
    },
    h("span", { class: "twisty", "aria-hidden": "true" }, expandable ? (node.expanded ? "▾" : "▸") : ""),
    h("span", { class: "title" }, node.title),
    node.summary ? h("span", { class: "summary" }, node.summary) : null,
    h("span", { class: "badges" }, node.badges || []));
    el.style.transform = `translateY(${i * ROW}px)`;
    el.firstChild.style.marginLeft = `${node.depth * 1.1}rem`;
    if (node.placeholder) this.waiting.push(node);
    return el;
  }

  focusRow(scroll = true) {
    if (!this.rows.length) return;
    if (scroll) this.scrollTo(this.focusIndex);
    const el = this.layer.querySelector(`[data-index="${this.focusIndex}"]`);
    if (el) {
      for (const other of this.layer.querySelectorAll('[tabindex="0"]')) other.tabIndex = -1;
      el.tabIndex = 0;
      el.focus({ preventScroll: true });
    }
  }

  scrollTo(i) {
    const top = i * ROW;
    const view = this.el.clientHeight;
    if (top < this.el.scrollTop) this.el.scrollTop = top;
    else if (top + ROW > this.el.scrollTop + view) this.el.scrollTop = top + ROW - view;
    this.render();
  }

  toggle(node, open) {
    if (!node.children || !node.children.length) return;
    node.expanded = open === undefined ? !node.expanded : open;
    this.refresh();
  }

  select(node) {
    this.selected = node;
    const i = this.rows.indexOf(node);
    if (i >= 0) this.focusIndex = i;
    this.render();
    this.onSelect(node);
  }

  /** Open every ancestor of the node with ``key``, select it and bring it into view. */
  reveal(key, focus = true) {
    const node = this.byKey.get(key);
    if (!node) return false;
    for (let p = node.parent; p; p = p.parent) p.expanded = true;
    this.refresh();
    this.focusIndex = this.rows.indexOf(node);
    this.select(node);
    const top = this.focusIndex * ROW - this.el.clientHeight / 3;
    this.el.scrollTop = Math.max(0, top);
    this.render();
    if (focus) this.focusRow(false);
    return true;
  }

  click(e) {
    const el = e.target.closest(".row");
    if (!el) return;
    const node = this.rows[Number(el.dataset.index)];
    this.focusIndex = Number(el.dataset.index);
    if (e.target.closest(".twisty")) this.toggle(node);
    else this.select(node);
    this.focusRow(false);
  }

  key(e) {
    const node = this.rows[this.focusIndex];
    if (!node) return;
    let handled = true;
    switch (e.key) {
      case "ArrowDown": this.focusIndex = Math.min(this.rows.length - 1, this.focusIndex + 1); break;
      case "ArrowUp": this.focusIndex = Math.max(0, this.focusIndex - 1); break;
      case "Home": this.focusIndex = 0; break;
      case "End": this.focusIndex = this.rows.length - 1; break;
      case "PageDown": this.focusIndex = Math.min(this.rows.length - 1, this.focusIndex + 15); break;
      case "PageUp": this.focusIndex = Math.max(0, this.focusIndex - 15); break;
      case "ArrowRight":
        if (node.children && node.children.length && !node.expanded) this.toggle(node, true);
        else if (node.expanded) this.focusIndex += 1;
        break;
      case "ArrowLeft":
        if (node.expanded) this.toggle(node, false);
        else if (node.parent) this.focusIndex = this.rows.indexOf(node.parent);
        break;
      case "Enter":
      case " ":
        this.toggle(node);
        this.select(node);
        break;
      default: handled = false;
    }
    if (handled) {
      e.preventDefault();
      this.focusRow();
    }
  }
}
