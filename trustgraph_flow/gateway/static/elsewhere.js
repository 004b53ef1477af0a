// A trace or document asked for in a collection that does not hold it (a link with the wrong
// or no ?collection=): the notice names the user's collections that do, each a link to it
// there, as tg-show-explain-trace says "It is in collection …".

import * as api from "./api.js";
import { h, route } from "./dom.js";

/** Append to ``box`` where the trace or document ``id`` is (``page``: "trace" or "document"),
 * when the user's other collections that this key may read hold it; nothing otherwise. */
export async function foundElsewhere(box, page, id) {
  const probe = page === "trace"
    ? { operation: "get-trace", id, step_limit: 1, wait: 0 } // a trace on its way: not here
    : { operation: "document-hierarchy", id, chunk_limit: 1 };
  const found = await api.foundIn(probe).catch(() => []);
  if (!found.length) return;
  const links = found.map((name) => {
    const query = new URLSearchParams(location.search);
    query.set("collection", name);
    return h("a", { href: `?${query}${route(page, id)}` }, name);
  });
  const noun = links.length === 1 ? "collection" : "collections";
  box.append(" ", h("span", { class: "found-in" }, `It is in ${noun} `,
    ...links.flatMap((a, i) => (i ? [", ", a] : [a])), "."));
}
