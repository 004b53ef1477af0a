// Drive the official TypeScript client (@trustgraph/client) against a running gateway.
//
//   node --experimental-websocket drive.mjs SOCKET_URL USER [TOKEN]
//
// Runs each call the client documents once, on its default socket path, and prints one JSON
// line per call: {"call", "outcome": "works" | "refused" | "hung", "ms", "value" | "error"}.
// A call that neither answers nor refuses within HANG_MS is "hung". The assertions live in
// tests/integration/test_ts_client.py.
import { createTrustGraphSocket } from "@trustgraph/client";

const HANG_MS = 8000;
const [url, user, token] = process.argv.slice(2);
const RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label";

// The client logs every socket event on stdout; keep stdout for our JSON lines.
const emit = console.log.bind(console);
console.log = (...args) => console.error(...args);

function settle(promise) {
  let timer;
  const hung = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ outcome: "hung" }), HANG_MS);
  });
  const done = promise.then(
    (value) => ({ outcome: "works", value }),
    (error) => ({ outcome: "refused", error: String(error?.message ?? error) }),
  );
  return Promise.race([done, hung]).finally(() => clearTimeout(timer));
}

// A streaming call (callbacks, no promise) as a promise: resolves on completion, rejects on error.
function streamed(start) {
  return new Promise((resolve, reject) => {
    const seen = { chunks: [], explain: [] };
    start(seen, resolve, reject);
  });
}

async function run(name, make) {
  const began = Date.now();
  const result = await settle(Promise.resolve().then(make));
  emit(JSON.stringify({ call: name, ms: Date.now() - began, ...result }));
}

const socket = createTrustGraphSocket(user, token, url);
const flow = socket.flow("default");
const library = socket.librarian();
const text = "Zorblat is a moon. Zorblat orbits the planet Quuxar.\n";
const doc = "urn:test:ts-client:moons";

await run("triplesQuery", () =>
  flow.triplesQuery(undefined, { t: "i", i: RDFS_LABEL }, undefined, 50),
);
await run("textCompletion", () => flow.textCompletion("You are terse.", "Say hello."));
await run("embeddings", () => flow.embeddings(["Paris"]));
await run("graphRag", () => flow.graphRag("What is the capital of France?"));
await run("documentRag", () => flow.documentRag("Where was Marie Curie born?", 3));
await run("graphRagStreaming", () =>
  streamed((seen, resolve, reject) =>
    flow.graphRagStreaming(
      "What is the capital of France?",
      (chunk, complete) => {
        seen.chunks.push(chunk);
        if (complete) resolve({ text: seen.chunks.join(""), explain: seen.explain });
      },
      reject,
      undefined,
      undefined,
      (event) => seen.explain.push(event.explainId),
    ),
  ),
);
await run("documentRagStreaming", () =>
  streamed((seen, resolve, reject) =>
    flow.documentRagStreaming(
      "Where was Marie Curie born?",
      (chunk, complete) => {
        seen.chunks.push(chunk);
        if (complete) resolve({ text: seen.chunks.join(""), explain: seen.explain });
      },
      reject,
      3,
      undefined,
      (event) => seen.explain.push(event.explainId),
    ),
  ),
);
await run("agent", () => {
  // agent() answers a promise that resolves when the dialog is complete (and never rejects:
  // errors go to its error callback).
  const answer = [];
  const errors = [];
  return flow
    .agent(
      "What is the capital of France?",
      () => {},
      () => {},
      (chunk) => answer.push(chunk),
      (error) => errors.push(String(error)),
    )
    .then(() => {
      if (errors.length) throw new Error(errors.join("; "));
      return { text: answer.join("") };
    });
});
await run("graphEmbeddingsQuery", () => flow.graphEmbeddingsQuery([0.1, 0.2], 5));
await run("rowsQuery", () => flow.rowsQuery("{ x }"));
await run("nlpQuery", () => flow.nlpQuery("q"));
await run("structuredQuery", () => flow.structuredQuery("q"));

// The librarian round trip: add, list, read back, remove.
await run("librarian.loadDocument", () =>
  library.loadDocument(
    Buffer.from(text).toString("base64"),
    "text/plain",
    "Moons of Quuxar",
    "a note on moons",
    ["astro"],
    doc,
    [],
  ),
);
await run("librarian.getDocuments", () => library.getDocuments());
await run("librarian.streamDocument", () =>
  streamed((seen, resolve, reject) =>
    library.streamDocument(
      doc,
      (content, _index, _total, complete) => {
        seen.chunks.push(content);
        if (complete) resolve(Buffer.from(seen.chunks.join(""), "base64").toString());
      },
      (error) => reject(new Error(error?.message ?? String(error))),
    ),
  ),
);
await run("librarian.getDocumentMetadata", () => library.getDocumentMetadata(doc));
await run("librarian.getProcessing", () => library.getProcessing());
await run("librarian.removeDocument", () => library.removeDocument(doc));
await run("librarian.getDocuments.after", () => library.getDocuments());

// Flows, configuration, knowledge cores and collections (the one flow; the user's own), and
// what this platform does not offer: each must end at once.
const flows = socket.flows();
const config = socket.config();
await run("flows.getFlows", () => flows.getFlows());
await run("flows.getFlowBlueprints", () => flows.getFlowBlueprints());
await run("flows.startFlow", () => flows.startFlow("f2", "default", "another"));
await run("config.getConfigAll", () => config.getConfigAll());
await run("config.getPrompts", () => config.getPrompts());
await run("knowledge.getKnowledgeCores", () => socket.knowledge().getKnowledgeCores());
await run("collectionManagement.updateCollection", () =>
  socket.collectionManagement().updateCollection("research", "Research", "papers", ["lab"]),
);
await run("collectionManagement.listCollections", () =>
  socket.collectionManagement().listCollections(),
);

socket.close();
process.exit(0);
