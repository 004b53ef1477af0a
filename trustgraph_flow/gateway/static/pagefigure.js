// A PDF page with cited characters highlighted: the page's image fetched once per page
// (GET /api/v1/page-image, revalidated by its ETag) and the characters' boxes (POST
// /api/v1/page-boxes, page points) laid over it as an SVG scaled with the image. Used by a
// claim's evidence (evidence.js) and by an edge selected in the tree (trace.js).
import * as api from "./api.js";
import { h, s } from "./dom.js";

// A PDF page's image is fetched once (GET, revalidated by its ETag) and kept for the page's
// life; the cited characters' boxes come as JSON in page points and are laid over the image
// as SVG, so another sentence on the same page is drawn without asking for the image again.
const images = new Map(); // page URI -> Promise<blob URL>
const boxes = new Map(); // page URI + ranges -> Promise<{width, height, text_layer, boxes}>

export function pageImage(page) {
  if (!images.has(page)) {
    const query = new URLSearchParams(api.scopedRequest({ page }));
    const got = fetch(`/api/v1/page-image?${query}`, {
      credentials: "same-origin",
      headers: { "X-TG-Viewer": "1" },
    }).then(async (resp) => {
      if (!resp.ok || !(resp.headers.get("Content-Type") || "").startsWith("image/png")) {
        const data = await resp.json().catch(() => null);
        throw new Error(data?.error?.message || `HTTP ${resp.status}`);
      }
      return URL.createObjectURL(await resp.blob());
    });
    got.catch(() => images.delete(page)); // a failure is asked again next time
    images.set(page, got);
  }
  return images.get(page);
}

export function pageBoxes(place) {
  const key = `${place.ref.page} ${place.offset} ${place.length}`;
  if (!boxes.has(key)) {
    const got = api.pageBoxes({ page: place.ref.page, chars: [[place.offset, place.length]] });
    got.catch(() => boxes.delete(key));
    boxes.set(key, got);
  }
  return boxes.get(key);
}

export const onPdfPage = (p) => p.offset != null && p.ref.page && p.ref.mime_type === "application/pdf";

// The page image with the boxes over it, once the image is decoded (both appear together).
async function highlighted(place, title) {
  const [src, found] = await Promise.all([pageImage(place.ref.page), pageBoxes(place)]);
  const img = h("img", { class: "page-image", src, alt: `Page ${place.ref.page_number} of ${title}, the evidence highlighted` });
  await img.decode().catch(() => null);
  const overlay = s("svg", { class: "page-overlay", viewBox: `0 0 ${found.width} ${found.height}`, preserveAspectRatio: "none", "aria-hidden": "true" });
  for (const [left, top, right, bottom] of found.boxes[0] || []) {
    overlay.append(s("rect", { class: "highlight", x: left - 1, y: top - 1, width: right - left + 2, height: bottom - top + 2 }));
  }
  return { frame: h("div", { class: "page-frame" }, img, overlay), marked: (found.boxes[0] || []).length };
}

/** Append to ``panel`` a figure of ``place``'s page with its characters highlighted (once
 * ``current()`` still holds when the image is ready; an error says why not). */
export async function pageFigure(panel, place, current = () => true) {
  const title = place.ref.title || place.ref.document;
  const figure = h("figure", { class: "page-figure" }, h("figcaption", { class: "muted" }, `${title}, page ${place.ref.page_number}: the cited characters highlighted`));
  panel.append(figure);
  try {
    const { frame, marked } = await highlighted(place, title);
    if (!current()) return;
    figure.prepend(frame);
    if (!marked) figure.append(h("p", { class: "notice" }, "This page has no text layer here: nothing can be marked on it."));
    performance.mark("viewer:highlight"); // read by bench/bench_highlight.py
  } catch (err) {
    if (current()) figure.append(h("p", { class: "notice error" }, `The page could not be drawn: ${err.message}`));
  }
}

/** An edge's first sentence on a PDF page, as a place (null when none was located). */
export function edgePdfPlace(edge) {
  for (const ref of edge.sources || []) {
    for (const span of ref.spans || []) {
      const place = { ref, quote: span.quote, offset: span.located ? span.page_offset : null, length: span.length };
      if (onPdfPage(place)) return place;
    }
  }
  return null;
}
