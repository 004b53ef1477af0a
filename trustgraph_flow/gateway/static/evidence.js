// Claim-level evidence on a trace page: the answer's sentences as buttons; choosing one
// shows the evidence it cites, each place quoted with "page N, chars a–b", and for a PDF
// page the page image drawn by the gateway with the cited characters' boxes laid over it.
import * as api from "./api.js";
import { clear, h } from "./dom.js";
import { onPdfPage, pageBoxes, pageFigure, pageImage } from "./pagefigure.js";
import { decoded, placesOf } from "./places.js";
import { asShown } from "./terminal_text.js";

// The RAG answers of a trace, each with where it came from: itself (no label), or the
// sub-traces its agent steps ran, each named by its step and tool ("step 2 · document-query";
// a call of a step of several: "step 2, call 1 · …").
function ragViews(trace, label = "") {
  if (trace.type !== "agent") return [{ rag: trace, label }];
  const under = (subs, name) => (subs || []).flatMap((sub) => ragViews(sub, name));
  return (trace.steps || []).flatMap((s) => [
    ...under(s.subtraces, `step ${s.index} · ${s.action}`),
    ...(s.calls || []).flatMap((c, k) => under(c.subtraces, `step ${s.index}, call ${k + 1} · ${c.action}`)),
  ]);
}

// Line and column (from 1) of character ``offset`` of ``chars`` (a string, or an array of
// code points when the text has characters outside the BMP: offsets count code points).
function lineCol(chars, offset) {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset; i++) {
    if (chars[i] === "\n") {
      line += 1;
      start = i + 1;
    }
  }
  return [line, offset - start + 1];
}

// "page N, chars a–b"; in a text or Markdown document (its ``text`` known) its line and
// columns first: "line 3, cols 20–50, chars a–b" (as the tg-* commands print it).
function placeText(pageNumber, offset, length, text) {
  let where = pageNumber == null ? "" : `page ${pageNumber}, `;
  if (pageNumber == null && text != null && offset + length <= text.length) {
    const [l1, c1] = lineCol(text, offset);
    const [l2, c2] = lineCol(text, offset + Math.max(length - 1, 0));
    if (l1 !== l2) where = `line ${l1} col ${c1} – line ${l2} col ${c2}, `;
    else where = c1 === c2 ? `line ${l1}, col ${c1}, ` : `line ${l1}, cols ${c1}–${c2}, `;
  }
  return `${where}chars ${offset}–${offset + length}`;
}

// A text or Markdown document's text (its bytes as the decoder reads them), once per page.
const documentTexts = new Map();
function documentText(doc) {
  if (!documentTexts.has(doc)) {
    documentTexts.set(doc, (async () => {
      const parts = [];
      let size = 0;
      for (;;) {
        const data = await api.librarian({ operation: "get-content", id: doc, offset: size });
        const part = decoded(data);
        parts.push(part);
        size += part.length;
        if (!part.length || size >= (data.total || 0)) break;
      }
      const all = new Uint8Array(size);
      let at = 0;
      for (const part of parts) { all.set(part, at); at += part.length; }
      const text = asShown(new TextDecoder("utf-8", { ignoreBOM: false }).decode(all));
      return /[\uD800-\uDFFF]/.test(text) ? Array.from(text) : text;
    })().catch(() => null));
  }
  return documentTexts.get(doc);
}

const isText = (ref) => !ref.page && (ref.mime_type || "").startsWith("text/");

// The quote highlighted in its text: the lines it is on (at most 200 characters either
// side), the quoted characters marked.
function inText(chars, offset, length) {
  const part = (a, b) => (typeof chars === "string" ? chars.slice(a, b) : chars.slice(a, b).join(""));
  let from = offset;
  while (from > 0 && chars[from - 1] !== "\n" && offset - from < 200) from--;
  let to = offset + length;
  while (to < chars.length && chars[to] !== "\n" && to - (offset + length) < 200) to++;
  return h("blockquote", { class: "evidence-quote in-text" },
    part(from, offset), h("mark", {}, part(offset, offset + length)), part(offset + length, to));
}

let shown = 0; // the latest claim asked for: an earlier one still loading draws nothing

// A claim's verdict as words (never colour alone), by verdict (docs/viewer.md).
const VERDICT_WORDS = {
  "supported": "✓ supported",
  "not-supported": "✗ not supported",
  "contradicted": "✗ contradicted",
  "unverified": "? unverified",
};
const ANSWER_WORDS = { "supported": "supported", "partly-supported": "partly supported", "unsupported": "unsupported" };

function verdictBadge(claim) {
  if (!claim.verdict) return null;
  return h("span", { class: `verdict verdict-${claim.verdict}` }, VERDICT_WORDS[claim.verdict] || claim.verdict);
}

/** An answer's verification: its verdict and why, and the answer given when withheld; a
 * tool's answer within an agent trace named by its step ("Step 2 · document-query's answer"). */
function verificationNote(rag, label = "") {
  const v = rag.verification;
  if (!v) return null;
  const whose = label ? `${label[0].toUpperCase()}${label.slice(1)}'s answer: ` : "";
  const note = h("div", { class: `verification verdict-${v.verdict}`, "data-step": label },
    h("p", {}, h("strong", {}, `${whose}Verified (${v.method}): ${ANSWER_WORDS[v.verdict] || v.verdict}`), ` — ${v.reason}`));
  if (v.abstention != null) note.append(h("p", { class: "abstention" }, `Answer given: ${v.abstention}`));
  return note;
}

async function showClaim(panel, rag, claim, n, label) {
  const mine = ++shown;
  const all = await placesOf(rag, claim);
  const texts = await Promise.all(all.map((p) => (p.offset != null && isText(p.ref) ? documentText(p.ref.document) : null)));
  if (mine !== shown) return;
  clear(panel);
  panel.append(h("h3", {}, `Claim ${n}${label ? ` (${label})` : ""}: “${claim.text}”`));
  if (claim.verdict) {
    panel.append(h("p", { class: "claim-verdict" }, verdictBadge(claim), claim.reason ? ` ${claim.reason}` : ""));
  }
  if (!claim.cited.length) {
    panel.append(h("p", { class: "muted" }, "This sentence cites no evidence."));
  }
  for (const [i, place] of all.entries()) {
    const title = place.ref.title || place.ref.document;
    const where = place.offset == null ? "unlocated: not found in its chunk" : placeText(place.ref.page_number, place.offset, place.length, texts[i]);
    const fits = texts[i] != null && place.offset + place.length <= texts[i].length;
    const quote = fits ? inText(texts[i], place.offset, place.length)
      : h("blockquote", { class: "evidence-quote" }, h("mark", {}, place.quote || "(no text recorded)"));
    panel.append(quote, h("p", { class: "evidence-place" }, `${title}, ${where}`));
  }
  const first = all.find(onPdfPage);
  if (!first) return;
  await pageFigure(panel, first, () => mine === shown);
}

// Fetch, while the reader reads the answer, each claim's page image and boxes.
async function prefetch(answers) {
  for (const { rag } of answers) {
    for (const claim of rag.claims) {
      const first = (await placesOf(rag, claim).catch(() => [])).find(onPdfPage);
      if (first) {
        pageImage(first.ref.page).catch(() => null);
        pageBoxes(first).catch(() => null);
      }
    }
  }
}

/** The section listing the answer's claims, or null when the trace recorded none. An agent
 * trace lists its tools' answers' claims, numbered as the list shows them, each tool's
 * verification named by its step, after the agent's own answer's verification. */
export function claimsSection(trace) {
  const answers = ragViews(trace).filter(({ rag }) => (rag.claims || []).length);
  if (!answers.length) return null;
  const panel = h("div", { class: "evidence-panel", "aria-live": "polite" },
    h("p", { class: "muted" }, "Choose a sentence of the answer to see the evidence it cites, on its page."));
  const list = h("ol", { class: "claims" });
  for (const { rag, label } of answers) {
    for (const claim of rag.claims) {
      const n = list.children.length + 1;
      const verdict = claim.verdict ? ` verdict-${claim.verdict}` : "";
      const button = h("button", { type: "button", class: `claim${verdict}`, "data-claim": String(n), "data-verdict": claim.verdict || "" },
        claim.text, " ", verdictBadge(claim) || "");
      button.addEventListener("click", () => {
        for (const b of list.querySelectorAll("button.claim")) b.setAttribute("aria-pressed", "false");
        button.setAttribute("aria-pressed", "true");
        showClaim(panel, rag, claim, n, label);
      });
      list.append(h("li", {}, button));
    }
  }
  prefetch(answers);
  const own = trace.type === "agent" ? [verificationNote(trace)] : [];
  const notes = [...own, ...answers.map(({ rag, label }) => verificationNote(rag, label))].filter((x) => x);
  return h("section", { class: "claims-section", "aria-labelledby": "claims-h" },
    h("h2", { id: "claims-h" }, "Evidence, sentence by sentence"), ...notes, list, panel);
}
