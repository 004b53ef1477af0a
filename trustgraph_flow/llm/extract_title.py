"""A title block: a document's title line and the version line under it.

Licences, standards and manuals open with their name on a line of its own and, on the next
line, which version it is and when it was issued ("GNU GENERAL PUBLIC LICENSE" / "Version 3,
29 June 2007"). Neither line is a sentence, so the clause reader states nothing; read
together they say the titled work has that version, of that date. A title written in
capitals is named as the text writes it elsewhere ("GNU General Public License"), when it
does. The quote is both lines, exactly as the text has them. A defined term in quotes on a
line of its own, with its definition on the next ('"Contributor"' / 'means each individual…',
as MPL-2.0 writes them), is read the same way: the two lines as one sentence.
"""

from __future__ import annotations

import re

from trustgraph_flow.llm.extract_complement import is_word
from trustgraph_flow.llm.extract_tokens import tokens_of
from trustgraph_flow.llm.extract_verbs import ADVERBS, AUXILIARIES, looks_verb

Fact = tuple[str, str, str, bool]
VERSION_WORDS = frozenset({"version", "revision", "edition", "release"})
MAX_TITLE_WORDS = 8
OPEN_QUOTES = frozenset({'"', "“"})
CLOSE_QUOTES = frozenset({'"', "”"})
# what a text calls itself: 'This License', 'This package' (a README's title names its software)
SOFTWARE = frozenset("package program library software project tool utility suite".split())


def _title(line: str) -> str | None:
    """The line's words when it can be a title: a few capitalised words, no sentence."""
    words = tokens_of(line)
    if not 0 < len(words) <= MAX_TITLE_WORDS or line.rstrip().endswith("."):
        return None
    if not all(w[:1].isupper() and w[:1].isalpha() for w in words):
        return None
    return " ".join(words)


def _named(title: str, text: str) -> str:
    """A capitals title as the text writes it elsewhere (the title itself if it does not)."""
    if not title.isupper():
        return title
    pattern = r"\s+".join(re.escape(w) for w in title.split())
    for m in re.finditer(pattern, text, re.IGNORECASE):
        if not m.group().isupper():
            return " ".join(m.group().split())
    return title


def _version(line: str) -> tuple[str, str] | None:
    """('3', '29 June 2007') of 'Version 3, 29 June 2007' (the date may be absent: '')."""
    tokens = tokens_of(line)
    if len(tokens) < 2 or tokens[0].lower() not in VERSION_WORDS or not tokens[1][0].isdigit():
        return None
    rest = tokens[2 + (len(tokens) > 2 and tokens[2] == ",") :]
    if rest and not any(len(t) == 4 and t.isdigit() for t in rest):
        return None  # what follows is no date
    if any(not t[:1].isalnum() for t in rest):
        return None
    return tokens[1], " ".join(rest)


def title_facts(text: str, title: tuple[int, int], line: tuple[int, int]) -> list[Fact]:
    """What a title line and the version line right under it state (none if they are not)."""
    between = text[title[1] : line[0]]
    if between.strip() or between.count("\n") != 1:
        return []
    name = _title(text[title[0] : title[1]])
    version = _version(text[line[0] : line[1]])
    if name is None or version is None:
        return []
    name = _named(name, text)
    number, date = version
    facts: list[Fact] = [(name, "has version", number, True)]
    if date:
        facts.append((name, f"has version {number} dated", date, True))
    return facts


def defined_above(text: str, term: tuple[int, int], line: tuple[int, int]) -> str:
    """A definition whose term stands on the line above it ('"Contributor"' / 'means each
    individual…', as MPL-2.0 writes them): the two read as one sentence ('' if they are not)."""
    head = " ".join(text[term[0] : term[1]].split())
    body = " ".join(text[line[0] : line[1]].split())
    if text[term[1] : line[0]].count("\n") != 1 or not _QUOTED_TERM.fullmatch(head):
        return ""
    return f"{head} {body}" if _DEFINING.match(body) else ""


_QUOTED_TERM = re.compile(r"[\"“][A-Z][\w -]{0,40}[\"”]")
_DEFINING = re.compile(r"(?:means|shall mean|refers to|includes)\b")


def defined_term(tokens: list[str]) -> tuple[list[str], int]:
    """'"Licensor" shall mean…', '"Object" form shall mean…', '"Copyright" also means…': the
    term a definition defines
    (a lower-case word right after the quote and before the verb is part of it)."""
    close = next((i for i in range(2, min(len(tokens), 7)) if tokens[i] in CLOSE_QUOTES), 0)
    if not close or not all(is_word(t) for t in tokens[1:close]):
        return [], 0
    end = close + 1
    while end + 1 < len(tokens) and tokens[end].isalpha() and tokens[end].islower():
        if tokens[end] in AUXILIARIES | ADVERBS or not looks_verb(tokens[end + 1]):
            break
        end += 1
    return [" ".join([*tokens[1:close], *tokens[close + 1 : end]])], end


def opening_title(text: str) -> str:
    """The name the text's first line gives it when that line is a title: capitalised words
    over a blank line, a version line or an underline ('GNU GENERAL PUBLIC LICENSE' /
    'Version 3, 29 June 2007' → 'GNU General Public License'); '' when it is not."""
    lines = [line.strip() for line in text.lstrip("\n").split("\n")[:2]] + [""]
    name = _title(lines[0])
    after = lines[1]
    if name is None or not (not after or _version(after) or set(after) <= set("=-")):
        return ""
    return _named(name, text)


def is_the_text(title: str, tokens: list[str]) -> bool:
    """Whether 'This <kind>' opening ``tokens`` stands for the text itself: a kind its title
    ends with ('This License' under 'GNU General Public License'), or software's for any title."""
    if not title or len(tokens) < 3 or tokens[0].lower() != "this":
        return False
    kind = tokens[1].lower()
    return kind == title.split()[-1].lower() or kind in SOFTWARE
