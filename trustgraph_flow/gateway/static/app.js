// The viewer's shell: sign-in, routing between the Traces, Trace and Document pages.

import * as api from "./api.js";
import { clear, h, parseRoute } from "./dom.js";
import { comparePage } from "./compare.js";
import { documentPage } from "./document.js";
import { tracePage } from "./trace.js";
import { tracesPage } from "./traces.js";

const main = document.getElementById("main");
const signOut = document.getElementById("sign-out");
let session = { auth: false, signed_in: true };
let rendering = 0;

export function problem(err, retry) {
  const box = h("div", { class: "notice error", role: "alert" },
    h("strong", {}, "Something went wrong. "), err.message || String(err));
  if (retry) box.append(" ", h("button", { type: "button", onclick: retry }, "Try again"));
  return box;
}

function loginPage(message) {
  const input = h("input", {
    id: "key", type: "password", name: "key", autocomplete: "current-password", required: true,
    "aria-describedby": "key-help",
  });
  const status = h("p", { class: "form-status", role: "status" }, message || "");
  const form = h("form", { class: "login" },
    h("h1", {}, "Sign in"),
    h("p", { id: "key-help" },
      "This gateway asks for an access key. Enter it once: the browser keeps it for a week ",
      "in a cookie that page scripts cannot read."),
    h("label", { for: "key" }, "Access key"),
    input,
    h("button", { type: "submit", class: "primary" }, "Sign in"),
    status);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    status.textContent = "Checking…";
    try {
      session = await api.signIn(input.value);
      input.value = "";
      render();
    } catch (err) {
      status.textContent = err.status === 401 ? "That key was not accepted. Check it and try again." : err.message;
      input.focus();
    }
  });
  clear(main).append(form);
  input.focus();
}

const who = document.getElementById("who");

/** "Signed in as …" and, for a key limited to some collections, which one to look at. */
function identity() {
  clear(who);
  const me = session.signed_in ? session.who : null;
  if (!me) return;
  if (session.auth) who.append(h("span", { class: "muted" }, me.admin ? "Signed in as the administrator" : `Signed in as ${me.user}`));
  const allowed = me.collections;
  if (allowed && allowed.length) {
    const saved = sessionStorage.getItem("tg-collection");
    const current = allowed.includes(saved) ? saved : (allowed.includes("default") ? "default" : allowed[0]);
    api.useCollection(current);
    const pick = h("select", { id: "collection", "aria-label": "Collection" },
      allowed.map((c) => h("option", { value: c, selected: c === current }, c)));
    pick.addEventListener("change", () => {
      sessionStorage.setItem("tg-collection", pick.value);
      api.useCollection(pick.value);
      location.hash = "#/";
      render();
    });
    who.append(" ", h("label", { for: "collection", class: "muted" }, "Collection"), " ", pick);
  }
}

async function render() {
  const ticket = ++rendering;
  signOut.hidden = !(session.auth && session.signed_in);
  identity();
  if (session.auth && !session.signed_in) {
    loginPage();
    return;
  }
  const { page, id, params } = parseRoute(location.hash);
  document.getElementById("nav-traces").setAttribute("aria-current", page === "traces" ? "page" : "false");
  const view = h("div", { class: "page" });
  const live = () => ticket === rendering;
  try {
    if (page === "trace" && id) await tracePage(view, id, params, live);
    else if (page === "document" && id) await documentPage(view, id, params, live);
    else if (page === "compare") await comparePage(view, params, live);
    else await tracesPage(view, params, live);
  } catch (err) {
    if (err.status === 401) {
      session = { auth: true, signed_in: false };
      loginPage("Your key is no longer accepted; sign in again.");
      return;
    }
    view.append(problem(err, render));
  }
  if (!live()) return;
  clear(main).append(view);
  const target = view.querySelector("[data-autofocus]");
  if (target) target.focus();
  view.dispatchEvent(new CustomEvent("shown"));
  document.body.dataset.ready = page;
  performance.mark(`viewer:ready:${page}`); // read by bench/bench_viewer.py
}

signOut.addEventListener("click", async () => {
  session = await api.signOut();
  render();
});

window.addEventListener("hashchange", () => {
  document.body.dataset.ready = "";
  render();
});

(async () => {
  try {
    session = await api.session();
  } catch (err) {
    clear(main).append(problem(err, () => location.reload()));
    return;
  }
  render();
})();
