"""An excerpt's sentences as the offline engine's pieces of evidence, each with what it is
read with (its *context*): the words a sentence leans on for what it speaks of.

- A sentence that opens with a pronoun or a definite description ("It was opened…", "The
  town was founded…"), also after a time or a place put first ("In 1923 she found…",
  "Today the building belongs…", "For forty years it was run…"), or that speaks of "such a"
  thing ("… is an example of such a server"), is read with the sentences before it in its
  paragraph.
- A sentence below a question that is a paragraph of its own (a FAQ's) is read with that
  question: "Look in zlib's contrib/puff directory." answers "Is there some simpler
  version of inflate…?".
- A line of a title block (unmarked lines without a full stop, no blank line between) is
  read as one with the lines above it (its *heading*): "Version 3, 29 June 2007" under
  "GNU GENERAL PUBLIC LICENSE" says what was published when (its words count as the
  line's own; the names of the two lines stay apart: not "… LICENSE Version").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from trustgraph_flow.llm.prose import marked, paragraph_spans
from trustgraph_flow.llm.text import words


@dataclass(frozen=True)
class Piece:
    text: str
    context: str = ""  # what the text leans on (the sentences before an anaphoric one)
    excerpt: str = ""  # the whole excerpt it is from
    heading: str = ""  # the title lines above a line of a title block, read as its own


ANAPHORS = frozenset("it he she they its his her their this these there such".split())
# Words that put a time first, before the sentence's subject ("Today the building…").
TIME_FIRST = frozenset(
    "today now then later afterwards meanwhile soon eventually finally nowadays once".split()
)
# A preposition that opens a sentence opens a phrase of time or place ("In 1923 she…").
PLACE_FIRST = frozenset(
    "in on at for after before during since until by from within throughout".split()
)
PHRASE_REACH = 3  # words of such a phrase before the subject ("For forty years it…")
_ENDS = (".", "!", "?", ":", ";", ",")
LABEL = 4  # characters of a question's number or mark before it ("30.", "Q:")
CUT = 12  # characters at least of a chunk's first sentence read as the end of one before it


def _leans(two: list[str]) -> bool:
    """Whether words open a subject that leans on what came before: a pronoun, "the town"."""
    if not two:
        return False
    first = two[0].lower()
    return first in ANAPHORS or (first in ("the", "this") and len(two) > 1 and two[1][:1].islower())


def _subject_starts(found: list[str]) -> list[int]:
    """Where the sentence's subject may start: at its first word, or past a time or place
    put first."""
    if not found:
        return []
    first = found[0].lower()
    if first in TIME_FIRST:
        return [1]
    if first in PLACE_FIRST:
        return list(range(1, 1 + PHRASE_REACH))
    return [0]


def _points_back(found: list[str]) -> bool:
    """Whether words hold "such a" or "such an" anywhere: a thing described before ("A
    public wiki … is an example of such a server", the server the sentence before defines)."""
    low = [w.lower() for w in found]
    return any(w == "such" and n in ("a", "an") for w, n in pairwise(low))


def anaphoric(sentence: str) -> bool:
    """Whether a sentence leans on the ones before it: its subject is a pronoun ("It was
    opened by…", "In 1923 she found…") or a definite description ("The town was founded…"),
    or it speaks of "such a" thing (``_points_back``)."""
    found = words(sentence)
    return any(_leans(found[i : i + 2]) for i in _subject_starts(found)) or _points_back(found)


def _title_line(chunk: str, paragraph: list[tuple[int, int]]) -> bool:
    """Whether a paragraph is one unmarked line without an end stop (a title, a version
    line)."""
    if len(paragraph) != 1:
        return False
    a, b = paragraph[0]
    line = chunk[a:b]
    return "\n" not in line and not line.endswith(_ENDS) and not marked(line)


@lru_cache(maxsize=1024)
def _contexts(chunk: str) -> tuple[tuple[str, str, str], ...]:
    """Each sentence of ``chunk`` (whitespace flattened) with what it is read with: its
    context and its heading. Kept per chunk: an answer reads the chunks of its edges, and
    the same chunks come back with the next question on them (~90 µs a sentence to read)."""
    out: list[tuple[str, str, str]] = []
    title: list[str] = []  # the title block the previous line ended, if any
    last = -1  # where the previous paragraph ended
    asked = ""  # the question a paragraph of its own asked: what the answers below speak of
    for paragraph in paragraph_spans(chunk):
        start = paragraph[0][0]
        if _title_line(chunk, paragraph):
            above = title if chunk[last:start].count("\n") == 1 else []
            text = " ".join(chunk[start : paragraph[0][1]].split())
            out.append((text, "", " ".join(above)))
            title, last = [*above, text], paragraph[0][1]
            continue
        title, last = [], paragraph[-1][1]
        for a, b in paragraph:
            text = " ".join(chunk[a:b].split())
            context = " ".join(chunk[start:a].split()) if anaphoric(text) else ""
            out.append((text, f"{asked} {context}".strip(), ""))
        said = [text for text, _, _ in out[-len(paragraph) :]]
        if said[-1].endswith("?") and all(len(t) <= LABEL for t in said[:-1]):
            asked = said[-1]  # "30. Is there…?", "Q: How do I…?"
    return tuple(out)


def excerpt_pieces(chunks: list[str]) -> tuple[list[Piece], list[int]]:
    """Each excerpt's sentences as pieces, with what each is read with (above), and the
    1-based excerpt each is from; a sentence repeated by overlapping excerpts counts once,
    and so does one an overlap cut: an excerpt's first sentence that is the end of one
    already read (the next chunk starting mid-sentence) adds nothing."""
    pieces: list[Piece] = []
    source: list[int] = []
    seen: set[str] = set()
    done: set[str] = set()  # a chunk given again (for each edge read from it) adds nothing
    for n, chunk in enumerate(chunks, start=1):
        if chunk in done:
            continue
        done.add(chunk)
        for i, (text, context, heading) in enumerate(_contexts(chunk)):
            if text in seen or (
                i == 0 and len(text) >= CUT and any(s.endswith(text) for s in seen)
            ):
                continue
            seen.add(text)
            pieces.append(Piece(text, context, chunk, heading))
            source.append(n)
    return pieces, source
