// Drive a JavaScript SPARQL client nobody on the project wrote (fetch-sparql-endpoint, the
// Comunica project's) against the gateway's SPARQL 1.1 Protocol endpoint, with its defaults.
//
//   node sparql.mjs ENDPOINT KEY
//
// Prints one JSON line per call: {"call", "value"} or {"call", "error"}. The assertions live
// in tests/integration/test_js_sparql_client.py.
import { SparqlEndpointFetcher } from "fetch-sparql-endpoint";

const [endpoint, key] = process.argv.slice(2);
const LABELS =
  "SELECT ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l } ORDER BY ?l";
const FOX = "urn:trustgraph:entity:fox";

function fetcher(options = {}) {
  return new SparqlEndpointFetcher({
    defaultHeaders: new Headers({ Authorization: `Bearer ${key}` }),
    timeout: 20000,
    ...options,
  });
}

function collect(stream) {
  return new Promise((resolve, reject) => {
    const out = [];
    stream.on("data", (item) => out.push(item));
    stream.on("error", reject);
    stream.on("end", () => resolve(out));
  });
}

const term = (t) => ({ type: t.termType, value: t.value });

async function run(name, make) {
  try {
    console.log(JSON.stringify({ call: name, value: await make() }));
  } catch (error) {
    console.log(JSON.stringify({ call: name, error: String(error?.message ?? error) }));
  }
}

const labels = async (url, options) =>
  (await collect(await fetcher(options).fetchBindings(url, LABELS))).map((b) => b.l.value);

await run("select", () => labels(`${endpoint}/research`));
await run("select.get", () => labels(`${endpoint}/research`, { method: "GET" }));
await run("select.direct", () => labels(`${endpoint}/research`, { directPost: true }));
await run("ask", () => fetcher().fetchAsk(`${endpoint}/research`, "ASK { ?s ?p ?o }"));
await run("construct", async () => {
  const query = `CONSTRUCT { <${FOX}> ?p ?o } WHERE { <${FOX}> ?p ?o }`;
  const triples = await collect(await fetcher().fetchTriples(endpoint, query));
  return triples.map((t) => [term(t.subject), term(t.predicate), term(t.object)]);
});
await run("describe", async () => {
  const triples = await collect(await fetcher().fetchTriples(endpoint, `DESCRIBE <${FOX}>`));
  return triples.length;
});
await run("dataset", async () => {
  const params = new URLSearchParams({ "default-graph-uri": "urn:graph:source" });
  const query = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }";
  const rows = await collect(
    await fetcher({ additionalUrlParams: params }).fetchBindings(endpoint, query),
  );
  return Number(rows[0].n.value);
});
await run("unknown", () => labels(`${endpoint}/no-such-collection`));
await run("update", () =>
  fetcher().fetchUpdate(endpoint, "INSERT DATA { <urn:a> <urn:b> <urn:c> }"),
);
await run("quoted", async () => {
  const edge = "https://trustgraph.ai/ns/edge";
  const query = `CONSTRUCT { ?e <${edge}> ?t } WHERE { GRAPH <urn:graph:retrieval> { ?e <${edge}> ?t } }`;
  const triples = await collect(await fetcher().fetchTriples(endpoint, query));
  return triples.map((t) => [t.object.termType, term(t.object.subject ?? t.object)]);
});
