// Where a claim's cited items are, as tg-show-evidence finds them (trustgraph_cli/render/
// evidence.py): an edge through the sentences stating it (its spans), after the claim's own
// sentence where a chunk the edge was read from holds it and no span of the edge is that
// sentence (an edge read from a heading, say, cited by the sentence below it); a chunk
// through its span (the claim's own sentence when the chunk's text holds it).
import * as api from "./api.js";
import { locate } from "./locate.js";

export function decoded(data) {
  return Uint8Array.from(atob(data.content || ""), (c) => c.charCodeAt(0));
}

// A chunk's text, or null when it cannot be read; once per page.
const chunkTexts = new Map();
function chunkText(uri) {
  if (!chunkTexts.has(uri)) {
    chunkTexts.set(uri, api.librarian({ operation: "get-content", id: uri })
      .then((data) => new TextDecoder().decode(decoded(data)))
      .catch(() => null));
  }
  return chunkTexts.get(uri);
}

// The claim's own sentence where the chunk ``ref`` (its ``text``) holds it, else null.
function said(ref, text, claim) {
  const at = text ? locate(claim.text, text) : null;
  if (!at || ref.char_offset == null) return null;
  const quote = Array.from(text).slice(at[0], at[0] + at[1]).join("");
  return { ref, quote, offset: ref.char_offset + at[0], length: at[1] };
}

async function places(rag, uri, claim) {
  const edge = (rag.edges || []).find((e) => e.uri === uri);
  if (edge) {
    const sources = edge.sources || [];
    const texts = await Promise.all(sources.map((ref) => (ref.chunk ? chunkText(ref.chunk) : null)));
    const own = sources.flatMap((ref, i) => {
      const place = said(ref, texts[i], claim);
      const stated = (s) => s.located && s.page_offset === place.offset && s.length === place.length;
      return place && !(ref.spans || []).some(stated) ? [place] : [];
    });
    return own.concat(sources.flatMap((ref) => (ref.spans || []).map((span) => ({
      ref, quote: span.quote, offset: span.located ? span.page_offset : null, length: span.length,
    }))));
  }
  const chunk = (rag.chunks || []).find((c) => c.uri === uri);
  if (!chunk) return [];
  const text = await chunkText(uri);
  return (chunk.sources || []).map((ref) => said(ref, text, claim)
    || { ref, quote: text, offset: ref.char_offset, length: ref.char_length });
}

const placeLists = new Map(); // claim -> Promise<places>

/** Every place a claim's cited items are, in order (the first on a PDF page is drawn). */
export function placesOf(rag, claim) {
  if (!placeLists.has(claim)) {
    placeLists.set(claim, Promise.all(claim.cited.map((uri) => places(rag, uri, claim))).then((l) => l.flat()));
  }
  return placeLists.get(claim);
}
