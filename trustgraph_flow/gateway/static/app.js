// The viewer's shell: sign-in, routing between the Traces, Trace and Document pages.

import * as api from "./api.js";
import { clear, h, parseRoute } from "./dom.js";
import { comparePage } from "./compare.js";
import { documentPage } from "./document.js";
import { foundElsewhere } from "./elsewhere.js";
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
      // A revoked or expired key is named so by the gateway: its holder is not sent looking for a typo.
      const lapsed = err.status === 401 && err.message.startsWith("this API key ");
      status.textContent = err.status === 401 && !lapsed ? "That key was not accepted. Check it and try again." : err.message;
      input.focus();
    }
  });
  clear(main).append(form);
  input.focus();
}

const who = document.getElementById("who");

/** The page address's ``?name=`` (the collection and, for the administrator, the user). */
function addressed(name) {
  return new URLSearchParams(location.search).get(name) || "";
}

/** A new address with ``?name=value`` (and the traces page): a link to it opens the same
 * view. Another user starts at their default collection. */
function readdress(name, value) {
  const url = new URL(location.href);
  if (value) url.searchParams.set(name, value);
  else url.searchParams.delete(name);
  if (name === "user") url.searchParams.delete("collection");
  url.hash = "#/";
  history.pushState(null, "", url);
  document.body.dataset.ready = "";
  render();
}

let known = { user: null, names: null }; // the collections listed for a user, once per user

/** Fill the picker's options with the user's collections: at once if listed before, else
 * when the listing comes (the page does not wait for it: a librarian that is slow or down
 * leaves the picker with the current and default collections). */
function offerCollections(me, pick, current) {
  const fill = (names) => {
    const all = [...new Set([...names, ...(me.collections ? [] : ["default"]), current])].sort();
    clear(pick).append(...all.map((c) => h("option", { value: c, selected: c === current }, c)));
  };
  if (me.collections) return fill(me.collections); // a key limited to these
  const user = addressed("user");
  if (known.user === user && known.names) return fill(known.names);
  fill([]);
  api.collections().then((names) => {
    known = { user, names };
    if (pick.isConnected && addressed("user") === user) fill(names);
  }, () => {}); // no listing: the current and default collections stay offered
}

/** "Signed in as …", a collection picker and, for the administrator, a user picker; what
 * they show is in the page address (``?collection=``, ``?user=``). */
function identity() {
  clear(who);
  const me = session.signed_in ? session.who : null;
  if (!me) return;
  if (session.auth) who.append(h("span", { class: "muted", id: "signed-in" }, me.admin ? "Signed in as the administrator" : `Signed in as ${me.user}`));
  const user = me.admin ? addressed("user") : "";
  api.useUser(user);
  if (me.admin) {
    const input = h("input", { id: "user", name: "user", value: user, placeholder: "trustgraph", size: 12, "aria-label": "User" });
    input.addEventListener("change", () => readdress("user", input.value.trim()));
    who.append(" ", h("label", { for: "user", class: "muted" }, "User"), " ", input);
  }
  const allowed = me.collections;
  let current = addressed("collection") || "default";
  if (allowed && !allowed.includes(current)) current = allowed.includes("default") ? "default" : allowed[0];
  api.useCollection(current);
  const pick = h("select", { id: "collection", name: "collection", "aria-label": "Collection" });
  offerCollections(me, pick, current);
  pick.addEventListener("change", () => readdress("collection", pick.value));
  who.append(" ", h("label", { for: "collection", class: "muted" }, "Collection"), " ", pick);
}

async function render() {
  const ticket = ++rendering;
  search = location.search;
  signOut.hidden = !(session.auth && session.signed_in);
  if (session.auth && !session.signed_in) {
    clear(who);
    loginPage();
    return;
  }
  const { page, id, params } = parseRoute(location.hash);
  document.getElementById("nav-traces").setAttribute("aria-current", page === "traces" ? "page" : "false");
  const view = h("div", { class: "page" });
  const live = () => ticket === rendering;
  try {
    identity();
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
    if (err.type === "not-found" && page === "trace" && id) await foundElsewhere(view.lastChild, page, id);
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

let search = location.search;
window.addEventListener("popstate", () => { // back or forward to another ?collection=
  if (location.search === search) return; // a hash's own change: hashchange renders it
  document.body.dataset.ready = "";
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
