// Finding a claim's sentence in the text it was quoted from: trustgraph_base/spans.py's
// ``locate``, read as loosely and no more. A run of whitespace (a PDF line break, a wrapped
// text line) matches any run of whitespace, and a hyphen ending a line matches the word it
// splits written whole, with its hyphen, or with the break as a space; anything else must
// match exactly. Offsets and
// lengths count code points, as the store's character offsets do.

const SPACE = /^[\s\x1c-\x1f\x85]$/u; // Python's str.isspace, which the store's spans use
const isSpace = (ch) => ch !== "\ufeff" && SPACE.test(ch);
const isAlpha = (ch) => /^\p{L}$/u.test(ch);

// ``chars`` with whitespace runs as one space (and hyphenated line ends joined), and for each
// kept character its index in ``chars``.
function normalise(chars, hyphens) {
  const out = [];
  const where = [];
  let i = 0;
  while (i < chars.length) {
    const ch = chars[i];
    if (ch === "-" && hyphens !== "space" && out.length && isAlpha(out[out.length - 1])) {
      let j = i + 1;
      while (j < chars.length && isSpace(chars[j]) && chars[j] !== "\n") j++;
      if (j < chars.length && chars[j] === "\n") { // a hyphen ending a line
        while (j < chars.length && isSpace(chars[j])) j++;
        if (j < chars.length && isAlpha(chars[j])) {
          if (hyphens === "keep") { out.push("-"); where.push(i); }
          i = j;
          continue;
        }
      }
    }
    if (isSpace(ch)) {
      let j = i;
      while (j < chars.length && isSpace(chars[j])) j++;
      if (out.length) { out.push(" "); where.push(i); } // leading whitespace is dropped
      i = j;
      continue;
    }
    out.push(ch);
    where.push(i);
    i++;
  }
  return [out, where];
}

// The code point index of UTF-16 index ``at`` of ``text``.
const codePoints = (text, at) => Array.from(text.slice(0, at)).length;

/** Where ``quote`` lies in ``text`` (its first occurrence): [offset, length], or null. */
export function locate(quote, text) {
  const wanted = quote.split(/[\s\x1c-\x1f\x85]+/u).filter(Boolean).join(" ");
  if (!wanted) return null;
  const size = Array.from(wanted).length;
  const exact = text.indexOf(wanted);
  if (exact >= 0) return [codePoints(text, exact), size];
  const chars = Array.from(text);
  for (const hyphens of ["space", "keep", "join"]) {
    const [out, where] = normalise(chars, hyphens);
    const flat = out.join("");
    const at = flat.indexOf(wanted);
    if (at >= 0) {
      const first = codePoints(flat, at);
      const start = where[first];
      return [start, where[first + size - 1] + 1 - start];
    }
  }
  return null;
}
