// A text as a terminal shows it (trustgraph_base/terminal_text.py, the same reading): the
// viewer counts a text document's characters as the decoder did, so spans land exactly.

// A text as a terminal shows it: a formatted manual's escape sequences (ECMA-48: ESC [ 4 m,
// ESC ( B) and overstrikes (X BS X, _ BS X) taken out, as the decoder takes them out
// (trustgraph_base/terminal_text.py), so offsets count the same characters.
const within = (c, lo, hi) => c !== undefined && c >= lo && c <= hi;
function afterEscape(text, i) {
  if (text[i] === "[") {
    i += 1;
    while (within(text[i], "\x20", "\x3f")) i += 1;
    return within(text[i], "\x40", "\x7e") ? i + 1 : i;
  }
  while (within(text[i], "\x20", "\x2f")) i += 1;
  return within(text[i], "\x30", "\x7e") ? i + 1 : i;
}
function unformatted(whole) {
  if (!whole.includes("\x1b") && !whole.includes("\b")) return whole;
  const text = Array.from(whole); // code points, as Python counts them
  const out = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\x1b") {
      i = afterEscape(text, i + 1);
    } else if (ch === "\b") {
      const struck = text[i + 1];
      const overstrikes = struck !== undefined && !"\n\x1b\b".includes(struck);
      if (out.length && out[out.length - 1] !== "\n" && overstrikes) {
        if (struck !== "_") out[out.length - 1] = struck; // "X BS _" underlines X
        i += 2;
      } else {
        i += 1;
      }
    } else {
      out.push(ch);
      i += 1;
    }
  }
  return out.join("");
}

// The words a formatter broke at a line's end (groff's HYPHEN U+2010) made whole on the line
// where they end, as unhyphenated in trustgraph_base/terminal_text.py does, with the same
// character classes and case tests.
const LETTER = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f";
// Each match starts where a run starts and no quantifier is nested in another (linear work
// on a long run, as in Python).
const BREAK = new RegExp(
  `(?<![^ \\t\\n\\r\\f\\v])([^ \\t\\n\\r\\f\\v]*)\u2010\\n([ \\t]*)([${LETTER}]+)`, "g");
const ONE_LETTER = new RegExp(`^[${LETTER}]$`);
function trailingLetters(run) {
  let start = run.length;
  while (start && ONE_LETTER.test(run[start - 1])) start -= 1;
  return run.slice(start);
}
function unhyphenated(text) {
  if (!text.includes("\u2010\n")) return text;
  const compounds = new Set(Array.from(
    text.matchAll(new RegExp(`(?<![${LETTER}])[${LETTER}]+[\u2010-][${LETTER}]+`, "g")),
    (m) => m[0].toLowerCase().replaceAll("\u2010", "-"),
  ));
  return text.replace(BREAK, (whole, head, indent, tail, at) => {
    const letters = trailingLetters(head);
    if (!letters) return whole;
    const lower = tail[0] !== tail[0].toUpperCase();
    const last = letters[letters.length - 1];
    const capitals = last !== last.toLowerCase() && tail === tail.toUpperCase();
    const alone = !text.slice(text.lastIndexOf("\n", at - 1) + 1, at).replace(/[ \t]/g, "");
    if (alone || !(lower || capitals)) return whole;
    if (compounds.has(`${letters}-${tail}`.toLowerCase())) return whole;
    return `\n${indent}${head}${tail}`;
  });
}

export function asShown(whole) {
  return unhyphenated(unformatted(whole));
}
