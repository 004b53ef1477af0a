// Claim-level evidence on a trace page: the answer's sentences as buttons; choosing one
// shows the evidence it cites, each place quoted with "page N, chars a–b", and for a PDF
// page the page image drawn by the gateway with the cited characters highlighted.
import * as api from "./api.js";
import { clear, h } from "./dom.js";

// The RAG answers of a trace: itself, or the sub-traces its agent steps ran.
function ragViews(trace) {
  if (trace.type !== "agent") return [trace];
  return (trace.steps || []).flatMap((s) => (s.subtraces || []).flatMap(ragViews));
}

function placeText(pageNumber, offset, length) {
  const page = pageNumber == null ? "" : `page ${pageNumber}, `;
  return `${page}chars ${offset}–${offset + length}`;
}

// Where a cited item is: an edge through the sentences stating it, a chunk through its span
// (the claim's own sentence when the chunk's text holds it).
async function places(rag, uri, claim) {
  const edge = (rag.edges || []).find((e) => e.uri === uri);
  if (edge) {
    return (edge.sources || []).flatMap((ref) => (ref.spans || []).map((span) => ({
      ref, quote: span.quote, offset: span.located ? span.page_offset : null, length: span.length,
    })));
  }
  const chunk = (rag.chunks || []).find((c) => c.uri === uri);
  if (!chunk) return [];
  let text = null;
  try {
    const data = await api.librarian({ operation: "get-content", id: uri });
    text = new TextDecoder().decode(Uint8Array.from(atob(data.content || ""), (c) => c.charCodeAt(0)));
  } catch {
    text = null;
  }
  return (chunk.sources || []).map((ref) => {
    const at = text ? text.indexOf(claim.text) : -1;
    if (at >= 0 && ref.char_offset != null) {
      return { ref, quote: claim.text, offset: ref.char_offset + at, length: claim.text.length };
    }
    return { ref, quote: text, offset: ref.char_offset, length: ref.char_length };
  });
}

async function pageImage(place) {
  const resp = await fetch("/api/v1/page-image", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-TG-Viewer": "1" },
    body: JSON.stringify(api.scopedRequest({ page: place.ref.page, chars: [[place.offset, place.length]] })),
  });
  if (!resp.ok || !(resp.headers.get("Content-Type") || "").startsWith("image/png")) {
    const data = await resp.json().catch(() => null);
    throw new Error(data?.error?.message || `HTTP ${resp.status}`);
  }
  return URL.createObjectURL(await resp.blob());
}

async function showClaim(panel, rag, claim, n) {
  clear(panel);
  panel.append(h("h3", {}, `Claim ${n}: “${claim.text}”`));
  if (!claim.cited.length) {
    panel.append(h("p", { class: "muted" }, "This sentence cites no evidence."));
  }
  let imaged = false;
  for (const uri of claim.cited) {
    for (const place of await places(rag, uri, claim)) {
      const title = place.ref.title || place.ref.document;
      const where = place.offset == null ? "unlocated: not found in its chunk" : placeText(place.ref.page_number, place.offset, place.length);
      panel.append(h("blockquote", { class: "evidence-quote" }, h("mark", {}, place.quote || "(no text recorded)")),
        h("p", { class: "evidence-place" }, `${title}, ${where}`));
      if (!imaged && place.offset != null && place.ref.page && place.ref.mime_type === "application/pdf") {
        imaged = true;
        const figure = h("figure", { class: "page-figure" }, h("figcaption", { class: "muted" }, `${title}, page ${place.ref.page_number}: the cited characters highlighted`));
        panel.append(figure);
        try {
          const img = h("img", { class: "page-image", alt: `Page ${place.ref.page_number} of ${title}, the evidence highlighted` });
          img.src = await pageImage(place);
          figure.prepend(img);
        } catch (err) {
          figure.append(h("p", { class: "notice error" }, `The page could not be drawn: ${err.message}`));
        }
      }
    }
  }
}

/** The section listing the answer's claims, or null when the trace recorded none. */
export function claimsSection(trace) {
  const answers = ragViews(trace).filter((rag) => (rag.claims || []).length);
  if (!answers.length) return null;
  const panel = h("div", { class: "evidence-panel", "aria-live": "polite" },
    h("p", { class: "muted" }, "Choose a sentence of the answer to see the evidence it cites, on its page."));
  const list = h("ol", { class: "claims" });
  for (const rag of answers) {
    rag.claims.forEach((claim, i) => {
      const button = h("button", { type: "button", class: "claim", "data-claim": String(i + 1) }, claim.text);
      button.addEventListener("click", () => {
        for (const b of list.querySelectorAll("button.claim")) b.setAttribute("aria-pressed", "false");
        button.setAttribute("aria-pressed", "true");
        showClaim(panel, rag, claim, i + 1);
      });
      list.append(h("li", {}, button));
    });
  }
  return h("section", { class: "claims-section", "aria-labelledby": "claims-h" },
    h("h2", { id: "claims-h" }, "Evidence, sentence by sentence"), list, panel);
}
