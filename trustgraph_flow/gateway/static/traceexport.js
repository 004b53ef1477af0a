// A trace page's Export button: the trace, its sub-traces and the sources it rests on, in a
// format chosen from a list, saved as a file.

import * as api from "./api.js";
import { h } from "./dom.js";

/** The whole trace (its TraceView JSON, with provenance, null fields left out), a window of steps at a time. */
async function wholeTrace(id, first) {
  const steps = [...first.trace.steps];
  for (let offset = api.WINDOW; offset < (first.step_total || 0); offset += api.WINDOW) {
    steps.push(...(await api.traceWindow(id, offset)).trace.steps);
  }
  return { ...first.trace, steps };
}

function saveFile(name, type, text) {
  const link = h("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

// Export formats: the store's export-trace (the trace, its sub-traces and the source chain
// it rests on, as RDF or PROV), and the viewer's own JSON of the assembled trace.
const FORMATS = [
  ["trig", "TriG (RDF, named graphs)", "trig"], ["turtle", "Turtle", "ttl"], ["jsonld", "JSON-LD", "jsonld"],
  ["provn", "PROV-N", "provn"], ["provjson", "PROV-JSON", "json"], ["view", "JSON (as shown here)", "json"],
];

export function exportButton(traceId, first) {
  const status = h("span", { class: "muted", role: "status" });
  const format = h("select", { id: "export-format", "aria-label": "Export format" },
    FORMATS.map(([value, label]) => h("option", { value }, label)));
  const button = h("button", { type: "button" }, "Export");
  button.addEventListener("click", async () => {
    status.textContent = " Fetching…";
    const [value, , ext] = FORMATS.find(([v]) => v === format.value);
    const name = `${traceId.replace(/^urn:trustgraph:/, "").replace(/[^A-Za-z0-9._-]+/g, "-")}.${ext}`;
    try {
      if (value === "view") {
        const whole = await wholeTrace(traceId, first);
        saveFile(name, "application/json", `${JSON.stringify(whole, null, 2)}\n`);
      } else {
        const data = await api.explain({ operation: "export-trace", id: traceId, format: value });
        saveFile(name, data.media_type || "text/plain", data.export);
      }
      status.textContent = "";
    } catch (err) {
      status.textContent = ` ${err.message}`;
    }
  });
  return [h("label", { for: "export-format", class: "muted" }, "Export as"), format, button, status];
}
