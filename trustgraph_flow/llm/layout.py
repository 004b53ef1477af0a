"""Lines that are layout, not prose: for the offline extractor (issue 29, junk edges).

A manual or a FAQ is not all sentences. Its table of contents ("3.1.3. Utility functions
summary . . . . 9"), section headings ("3.4.8. Handling embedded compressed data streams"),
option lines ("-k --keep" and the description under it), usage lines ("bzip2 [ -cdfkqstvzVL ]
[ filenames ... ]"), table rows ("\\dDDD   decimal char, where DDD are 1-3 decimal digits"),
code and comments ("# Comments supported by GNU sed"), a state machine's arrows
("User-requested connect to one host -> query") and labels ("update-broadcast-willing:") and
a heading standing on its own line ("Getting started with sed", over a link) read, word by
word, like a name and a verb; the clause reader made edges of them (``Utility → functions →
summary``, ``DDD → are → 1``). Whether a line is such is a matter of the line and its
neighbours, which only the text's layout shows, so it is decided here, per line, before any
sentence is read; a sentence that starts on such a line, or runs into one with no full stop
("Add new host to the host list" / "update-broadcast-willing:"), states nothing. Title blocks
and defined terms are read apart (``extract_title``), from the lines themselves.
"""

from __future__ import annotations

import re

from trustgraph_flow.llm.extract_tokens import unlinked

# "Utility functions summary . . . . 9", "Introduction ........ 1": a contents line
_LEADERS = re.compile(r"(?:\.\s?){4,}\s*[\divxlc]*\s*$", re.IGNORECASE)
# "3.4.8. Handling…", "4.13. How do I…": a numbered section (two levels or more)
_SECTION = re.compile(r"\d{1,3}(?:\.\d{1,3})+\.?\s+\S")
# "-k --keep", "--help  show this", "-s, --small": an option
_OPTION = re.compile(r"-{1,2}[A-Za-z0-9?]")
_OPTIONS_ONLY = re.compile(r"(?:-{1,2}[\w?][\w-]*(?:[= ]?<?[A-Za-z_]+>?)?[ ,]*)+:{0,2}")
# "bzip2 [ -cdfkqstvzVL123456789 ] [ filenames ... ]", "Usage: sed [OPTION]..."
_SYNOPSIS = re.compile(r"(?:usage|synopsis)\s*:|\[\s*-{1,2}\w|\[\s*[A-Z]+\s*\]", re.IGNORECASE)
# "\dDDD   decimal char": columns apart (not the two spaces after a full stop)
_COLUMNS = re.compile(r"[^\s.!?]( {3,}|\t)\S")
_GAP = re.compile(r"(?<=\S) +(?=\S)")
JUSTIFIED_GAPS = 4  # a justified line spreads its spaces over this many gaps or more
_CODE_START = re.compile(r"(?:#|//|/\*|\$ |>>>|[{}<])")
_URL = re.compile(r"\s*(?:<?https?://|<?ftp://|www\.)")
_SENTENCE_END = re.compile(r"[.!?][\"')\]’”]*$")
_INNER_END = re.compile(r"[a-z)][.!?][\"')\]’”]*\s")
_UNDERLINE = re.compile(r"[-=~^*]{3,}")  # "Package declarations" / "--------------"
_RULE = re.compile(r"[-=~^*_]{3,}")  # a line across the page
# "```sh", "~~~": a fenced block of code; "----", "....": a listing or literal block under an
# attribute line ("[source,shell]"; a plain text draws rules across its page with such lines)
_FENCE = re.compile(r"`{3,}|~{3,}")
_DELIMITER = re.compile(r"-{4,}|\.{4,}")
_ATTRIBUTE = re.compile(r"\[[\w ,=\"'-]*\]")
# "User-requested connect to one host -> query": a state machine's or a diagram's arrow
_ARROW = re.compile(r"(?:^|\s)(?:-+>|=+>|<-+|<=+|[→⇒←])(?:\s|$)")
# "update-broadcast-willing:", "max_size:": an identifier's label, a state or a key
_LABEL = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+:(?:\s.*)?")
_FRAME = "*|# \t"  # a box drawn around prose ("*  Covered Software is provided…  *")
HEADING_CHARS = 70  # a heading is a short line
LETTERS_SHARE = 0.6  # below this share of letters among its characters a line is code…
PROSE_WORDS = 3  # …unless it has as many lower-case words of three letters or more


def _line_at(text: str, at: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return start, len(text) if end < 0 else end


def _code(body: str) -> bool:
    """A line that opens as code or a comment, or is mostly punctuation, digits or symbols
    and has few words of prose ("In 1871, 1872 and 1890 the mill…" is prose)."""
    if _CODE_START.match(body):
        return True
    chars = [c for c in body if not c.isspace()]
    letters = sum(c.isalpha() for c in chars)
    prose = sum(len(w) > 2 and w.isalpha() and w.islower() for w in body.split())
    return letters < LETTERS_SHARE * len(chars) and prose < PROSE_WORDS


def heading(body: str) -> bool:
    """Whether a line, by itself, is a numbered section heading or a contents line."""
    return bool(_LEADERS.search(body)) or (
        bool(_SECTION.match(body)) and not _SENTENCE_END.search(body)
    )


def goes_on(body: str, below: str) -> bool:
    """Whether a numbered line's sentence goes on in the line below, which starts with no
    capital nor a number of its own ("5.1. The rights… will terminate automatically" / "if
    You fail…"): prose, not a section heading over its first sentence."""
    nxt = below.strip()
    return (
        bool(_SECTION.match(body))
        and not _LEADERS.search(body)
        and bool(nxt)
        and not nxt[0].isupper()
        and not _SECTION.match(nxt)
    )


def _alone(text: str, start: int, end: int, body: str, below: str) -> bool:
    """A heading standing alone: a short line ending in no punctuation, over a link set
    deeper ("Getting started with sed" / "    http://…") or underlined ("-----"), or in title case or capitals over a
    blank line ("Shareware and Commercial Versions"). A line ending in a colon introduces
    what follows and says something itself ("Libpng uses an integer approximation:"); a
    link at the same depth ends the line's sentence ("…is available at" / "<https://…>.");
    the text's first and last lines may be cut short, so are not judged."""
    if len(body) > HEADING_CHARS or _SENTENCE_END.search(body) or body[-1] in ",;:":
        return False
    if _INNER_END.search(body) or start == 0 or end + 1 >= len(text):
        return False  # "(8) In interval expressions, 0 is not supported. E.g., \{0,3\)"
    if _UNDERLINE.fullmatch(below.strip()):
        return True
    if not below.strip():
        words = [w for w in body.split() if len(w) > 3]
        return bool(words) and all(w[:1].isupper() for w in words)
    return bool(_URL.match(below)) and _indent(below) > _indent(text[start:end])


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _option_above(text: str, start: int) -> bool:
    """Whether the line above is only options ("-k --keep"): this line describes it."""
    if start == 0:
        return False
    a, b = _line_at(text, start - 1)
    above = text[a:b].strip()
    return bool(above) and bool(_OPTIONS_ONLY.fullmatch(above))


class Layout:
    """The lines of ``text`` that are layout, judged once: ``not_prose(a, b)`` is whether the
    sentence at ``a:b`` starts on one, or runs into one with no full stop. Contents lines,
    section headings (not a numbered line whose sentence goes on below in lower case),
    options, usage lines, table rows, code and a state machine's lines count wherever on
    the line a sentence starts; an option's description and a heading standing alone only
    for a sentence opening its line (one after a full stop is prose by then)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.anywhere: set[int] = set()
        self.opening: set[int] = set()
        start, fence, above = 0, "", ""
        while start <= len(text):
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
            body = unlinked(text[start:end]).strip()  # a link's address is no layout
            below = text[end + 1 : _line_at(text, end + 1)[1]] if end < len(text) else ""
            if fence or (_opens_block(body, above) and _closed(text, end, body)):
                self.anywhere.add(start)  # a block of code, from its opening line to its end
                fence = _still_open(fence, body)
            elif body and _layout(body) and not goes_on(body, below):
                self.anywhere.add(start)
            elif body and (_option_above(text, start) or _alone(text, start, end, body, below)):
                self.opening.add(start)
            start, above = end + 1, body

    def not_prose(self, a: int, b: int) -> bool:
        start = self.text.rfind("\n", 0, a) + 1
        if start in self.anywhere:
            return True
        if start in self.opening and not self.text[start:a].strip():
            return True
        return not _SENTENCE_END.search(self.text[a:b].rstrip()) and self._runs_into(a, b)

    def _runs_into(self, a: int, b: int) -> bool:
        """Whether the sentence at ``a:b`` goes on into a line of layout ("Add new host to
        the host list" / "update-broadcast-willing:"): with no full stop, a row of a table
        or a diagram, not a sentence. Code set deeper is an example the sentence shows
        ("…accessed by code such as" / "        image[c][row][col]"), and a rule across
        the page ("______") is the page's, not the sentence's."""
        first = _indent(self.text[self.text.rfind("\n", 0, a) + 1 : a + 1])
        line = self.text.find("\n", a, b)
        while line >= 0:
            end = self.text.find("\n", line + 1)
            body = self.text[line + 1 : len(self.text) if end < 0 else end]
            if line + 1 in self.anywhere and _indent(body) <= first:
                if not _RULE.fullmatch(body.strip()):
                    return True
            line = self.text.find("\n", line + 1, b)
        return False


def _closed(text: str, end: int, body: str) -> bool:
    """Whether a block opened by the line ``body`` is closed by the same line below it: a
    title's underline ("Valgrind FAQ" / "~~~~~~") or a rule opens nothing."""
    mark = _FENCE.match(body)
    close = re.escape(mark.group() if mark else body)
    return re.search(rf"^[ \t]*{close}[ \t]*$", text[end + 1 :], re.MULTILINE) is not None


def _opens_block(body: str, above: str) -> bool:
    if body.startswith("~") and above:
        return False  # under a line of text, '~~~~' underlines it
    return bool(_FENCE.match(body)) or (
        bool(_DELIMITER.fullmatch(body)) and bool(_ATTRIBUTE.fullmatch(above))
    )


def _still_open(fence: str, body: str) -> str:
    """The fence a block of code is open with after the line ``body`` ('' once closed)."""
    if not fence:
        found = _FENCE.match(body)
        return found.group() if found else body
    if body == fence or (
        fence[0] in "`~" and body.startswith(fence) and not body[len(fence) :].strip(fence[0])
    ):
        return ""
    return fence


def _layout(body: str) -> bool:
    return (
        heading(body)
        or bool(_OPTION.match(body))
        or bool(_SYNOPSIS.search(body))
        or (bool(_COLUMNS.search(body.strip(_FRAME))) and not _justified(body.strip(_FRAME)))
        or _code(body)
        or bool(_ARROW.search(body))
        or bool(_LABEL.fullmatch(body))
    )


def _justified(body: str) -> bool:
    """Whether a line is prose set flush to both margins ("It  is  written  in  C,   designed
    to  be  small,": FreeType's README): its spaces spread over every gap, their widths a
    step apart, among words mostly of prose. A table's columns stand apart from cells whose
    words have one space between them ("\\dDDD   decimal char, where DDD are…")."""
    if "\t" in body:
        return False
    gaps = [len(g) for g in _GAP.findall(body)]
    cells = body.split()
    prose = sum(w.strip(",;:.()`'\"").isalpha() and w[:1].islower() for w in cells)
    return len(gaps) >= JUSTIFIED_GAPS and max(gaps) - min(gaps) <= 1 and 2 * prose >= len(cells)
