"""A sentence as the offline extractor reads it: its tokens, with what states nothing read past.

Markup ("## ", "- ", "**"; a Markdown link is its text, an image nothing), an opening phrase
before a comma that has no verb ("In 1903,", "For example,"), an opening adverb
("Historically,", "Generally daemons…"), asides in brackets ("Root is (typically) the
superuser") and citation keys ("[PB61]", "[12]") are no part of the clause. A path
("/var/mail") is one token, and so are a name joined by '&', '/' or '_' ("AT&T", "U/WIN",
"png_read"; not "and/or"), a file's extension (".gz": 'decompress .z files'), a size ("8x8"), a number's measure ("32-bit": 'a 32-bit number'
is not 'is → 32') and a hexadecimal id ("0a8f4f0": 'as of commit 0a8f4f0' is not '→ 0').
The edge's quote is the sentence as written: only the reading skips these.
"""

from __future__ import annotations

import re

from trustgraph_flow.llm.extract_verbs import looks_adverb, looks_verb

MAX_ASIDE = 8  # tokens inside brackets read past as an aside
MAX_CITATION = 5  # tokens inside square brackets read past as a citation key
_TOKEN = re.compile(
    r"\d+[x×]\d+\b|\d+(?:-[^\W\d_]+)+|\d+[a-f]+\d[\da-f]*\b|\d[\d,.]*\d|\d"
    r"|(?<![\w/])/[^\W_][\w-]*(?:[./][^\W_][\w-]*)*"
    r"|[^\W_]+(?:(?:['’.-]|_+|[&/](?!or\b))[^\W_]+)*"
    r"|(?<![\w.])\.[A-Za-z][A-Za-z0-9]{0,4}\b(?!\.)|[^\w\s]",
    re.UNICODE,
)
_LEADING_CLAUSE = re.compile(
    r"^(?:in|by|after|before|since|until)\s+\d{3,4}\s+(?=(?-i:[A-Z])|(?:he|she|they|it|the)\b)"
    r"|^(?:in|on|at|after|before|during|since|by|from|for|until|following)\b[^,]{0,80},\s*",
    re.I,
)
# '[RFC8878](https://…)' reads 'RFC8878'; '![logo](…)' nothing
_LINK = re.compile(r"(!?)\[([^\[\]\n]*)\]\([^()\s]*\)")
_MARKUP = re.compile(
    r"^\s*(?:#{1,6}\s+|[-*+•]\s+|\d{1,3}[.)]\s+|>\s*)+|[*`]{1,3}|(?<!\w)_{1,2}\b|\b_{1,2}(?!\w)"
)


def unlinked(text: str) -> str:
    """``text`` with each Markdown link as its text and each image left out."""
    return _LINK.sub(lambda m: "" if m.group(1) else m.group(2), text)


def tokens_of(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _citation(tokens: list[str], i: int) -> int:
    """How many tokens a citation key from ``i`` takes ('[PB61]', '[12]', '[3, 7]', '[GGO+10]':
    a number among up to MAX_CITATION tokens in square brackets), else 0. A usage line's
    options ('[ -s ]') hold no number."""
    window = tokens[i + 1 : i + MAX_CITATION + 2]
    close = next((n for n, t in enumerate(window) if t in "[]"), None)
    if tokens[i] != "[" or close is None or window[close] != "]" or close == 0:
        return 0
    inside = window[:close]
    cited = all(t.isalnum() or t in ",;+-" for t in inside) and any(
        ch.isdigit() for t in inside for ch in t
    )
    return close + 2 if cited else 0


_SINGLE_QUOTES = frozenset("'‘’")


def _unquoted(tokens: list[str]) -> list[str]:
    """The tokens less single quotes around one word ("provides the 'msgmerge' program"):
    a term set off so is read as the word it is."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if (
            tokens[i] in _SINGLE_QUOTES
            and i + 2 < len(tokens)
            and tokens[i + 2] in _SINGLE_QUOTES
            and tokens[i + 1][:1].isalnum()
            and len(tokens[i + 1]) > 1  # "'N' adds the Next line": a letter is a command
        ):
            out.append(tokens[i + 1])
            i += 3
            continue
        out.append(tokens[i])
        i += 1
    return out


def _without_of_course(tokens: list[str]) -> list[str]:
    """The tokens less 'of course', an aside ('will of course return no data')."""
    out: list[str] = []
    for i, token in enumerate(tokens):
        after = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
        before = tokens[i - 1].lower() if i else ""
        pair = (token.lower(), after) == ("of", "course") or (before, token.lower()) == (
            "of",
            "course",
        )
        if not pair:
            out.append(token)
    return out


def _without_asides(tokens: list[str]) -> list[str]:
    """The tokens less each short bracketed aside ('(typically)', '(specifically, proxy
    daemons)') and each citation key ('Peterson and Brown [PB61] proposed…')."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] == "(":
            window = tokens[i + 1 : i + MAX_ASIDE + 2]
            close = next((n for n, t in enumerate(window) if t in "()"), None)
            if close is not None and window[close] == ")" and close > 0:
                i += close + 2
                continue
        cited = _citation(tokens, i)
        if cited:
            i += cited
            continue
        out.append(tokens[i])
        i += 1
    return out


def sentence_tokens(sentence: str) -> list[str]:
    """A sentence's tokens, its markup, an opening 'In 1903,' or 'Historically,' and its
    bracketed asides read past."""
    plain = _MARKUP.sub("", unlinked(" ".join(sentence.split()))).strip().rstrip(".!?;:")
    opening = _LEADING_CLAUSE.match(plain)
    if opening and not any(looks_verb(t) for t in tokens_of(opening.group())[1:]):
        plain = plain[opening.end() :]
    tokens = _without_asides(_unquoted(tokens_of(plain)))
    tokens = _without_of_course(tokens)
    if len(tokens) > 2 and looks_adverb(tokens[0]):
        tokens = tokens[1 + (tokens[1] == ",") :]  # "Historically, …", "Generally daemons…"
    return tokens


def past_version(tokens: list[str], i: int, before: frozenset[str] | None = None) -> int:
    """Past a version number after a name ('zip 1.9'); with ``before``, only when one of
    those words follows it ('GNU Make 4.4 was released…', not '…GPL Version 3.0 and')."""
    if i < len(tokens) and tokens[i][:1].isdigit() and "." in tokens[i]:
        if before is None or (i + 1 < len(tokens) and tokens[i + 1].lower() in before):
            return i + 1
    return i
