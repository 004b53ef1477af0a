// The gateway's REST API, as the tg-* commands use it. The browser sends the viewer's
// HttpOnly cookie itself; the X-TG-Viewer header lets the gateway read it.

export class ApiError extends Error {
  constructor(type, message, status) {
    super(message);
    this.type = type;
    this.status = status;
  }
}

async function post(path, body) {
  let resp;
  try {
    resp = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-TG-Viewer": "1" },
      body: JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError("unreachable", `cannot reach the gateway (${err.message}); is tg-start still running?`, 0);
  }
  let data = null;
  try {
    data = await resp.json();
  } catch {
    data = null;
  }
  const error = data && (data.error || null);
  if (!resp.ok || error) {
    throw new ApiError(error?.type || "http", error?.message || `HTTP ${resp.status}`, resp.status);
  }
  return data;
}

let collection = null; // null: the gateway's default collection
let user = null; // null: the key's own user (the administrator's: the default user)

/** Ask every later request about collection ``name`` (the page's ``?collection=``). */
export function useCollection(name) {
  collection = name || null;
}

/** The administrator asks about user ``name`` (the page's ``?user=``; null: the default). */
export function useUser(name) {
  user = name || null;
}

function scoped(request) {
  const out = collection ? { ...request, collection } : { ...request };
  if (user) out.user = user;
  return out;
}

/** The names of the collections the viewer may show (the user's, as tg-list-collections). */
export async function collections() {
  return (await listing()).names;
}

/** The user's collections: {names, unreachable} (a line for each store shard that did not
 * answer: its collections are not among the names). */
export async function listing() {
  const body = user ? { operation: "list-collections", user } : { operation: "list-collections" };
  const data = await post("/api/v1/collection-management", body);
  return { names: (data.collections || []).map((c) => c.collection), unreachable: data.unreachable || [] };
}

/** The collection the viewer asks about. */
export function currentCollection() {
  return collection || "default";
}

/** ``request`` in the collection the viewer asks about (for calls made with fetch itself). */
export function scopedRequest(request) {
  return scoped(request);
}

export function explain(request) {
  return post("/api/v1/flow/default/service/explain", scoped(request));
}

/** The user's other collections (those this key may read, at most 20) in which ``request``,
 * an explain read of one trace or document, finds it: where a link with the wrong (or no)
 * ?collection= should have pointed. One request a collection, only after a not-found. */
export async function foundIn(request) {
  const here = collection || "default";
  const found = [];
  for (const name of (await collections()).filter((c) => c !== here).slice(0, 20)) {
    try {
      await post("/api/v1/flow/default/service/explain", { ...scoped(request), collection: name });
      found.push(name);
    } catch {
      // not there (or not this key's): looked for elsewhere
    }
  }
  return found;
}

export const WINDOW = 500; // agent steps per get-trace request

/** One window of a trace's steps, from ``offset``, with provenance (get-trace). */
export function traceWindow(id, offset) {
  return explain({ operation: "get-trace", id, include_provenance: true, step_offset: offset, step_limit: WINDOW });
}

export function librarian(request) {
  return post("/api/v1/librarian", scoped(request));
}

/** Where characters of a PDF page are: {width, height, text_layer, boxes} in page points. */
export function pageBoxes(request) {
  return post("/api/v1/page-boxes", scoped(request));
}

export async function session() {
  const resp = await fetch("/viewer/session", { credentials: "same-origin" });
  return resp.json();
}

export function signIn(key) {
  return post("/viewer/login", { key });
}

export function signOut() {
  return post("/viewer/logout", {});
}

/** The text of pages or chunks, in batches of 50 (well under a reply's cap), as {uri: text}. */
export async function contents(ids) {
  const out = {};
  const decoder = new TextDecoder();
  for (let i = 0; i < ids.length; i += 50) {
    const data = await librarian({ operation: "get-content", ids: ids.slice(i, i + 50) });
    for (const [uri, b64] of Object.entries(data.contents || {})) {
      out[uri] = decoder.decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
    }
  }
  return out;
}

/** A document's original bytes, fetched in pieces the librarian's replies can carry. */
export async function original(id, mimeType) {
  const parts = [];
  const piece = 2 * 1024 * 1024;
  let offset = 0;
  let total = 1;
  while (offset < total) {
    const data = await librarian({ operation: "get-content", id, offset, length: piece });
    const bytes = Uint8Array.from(atob(data.content || ""), (c) => c.charCodeAt(0));
    total = data.total || 0;
    if (!bytes.length) break;
    parts.push(bytes);
    offset += bytes.length;
  }
  return new Blob(parts, { type: mimeType || "application/octet-stream" });
}
