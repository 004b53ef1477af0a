"""Heuristic (subject, predicate, object) extraction for the offline engine.

A sentence's subject is a capitalised noun phrase (or a list of them: "Hale, Mott and Rook
founded…" gives one edge each); an apposition after it states what the subject is ("Casimir
Rook, an engineer from Leeds, designed…"); the clause from its verb is read by
``extract_clause`` (passive voice as the agent's act, lists of objects, a year). A pronoun
stands for the previous sentence's subject; a clause joined by "and" is read too, and so is
a list's passive ("owned by AT&T, created by David Korn, and…"). Junk is dropped: a pronoun
or an adverb as subject or object, a predicate that does not start with a verb, an object
that repeats its subject. A copyright notice says who holds it (``extract_notice``), a title
page's byline who wrote it (``extract_byline``). Each edge keeps its sentence (``quote``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from trustgraph_flow.llm.extract_byline import byline_facts
from trustgraph_flow.llm.extract_clause import (
    active_facts,
    is_cap,
    noun_phrase,
    passive_facts,
    phrase,
)
from trustgraph_flow.llm.extract_complement import is_word
from trustgraph_flow.llm.extract_junk import clean
from trustgraph_flow.llm.extract_kinds import common_noun
from trustgraph_flow.llm.extract_lower import lower_name, opens_sentence
from trustgraph_flow.llm.extract_names import named_kind, named_subject
from trustgraph_flow.llm.extract_notice import is_notice, notice_facts
from trustgraph_flow.llm.extract_opening import empty_it, no_subject
from trustgraph_flow.llm.extract_parts import misread
from trustgraph_flow.llm.extract_plural import opens_with_description
from trustgraph_flow.llm.extract_relative import relative_facts
from trustgraph_flow.llm.extract_subject import Memory, subjects, without_subject
from trustgraph_flow.llm.extract_title import defined_above, opening_title, title_facts
from trustgraph_flow.llm.extract_tokens import sentence_tokens
from trustgraph_flow.llm.extract_verbs import (
    ADVERBS,
    NEGATIONS,
    is_participle,
    known_verb,
    looks_verb,
)
from trustgraph_flow.llm.extract_words import ARTICLES, COPULAS, PRONOUNS
from trustgraph_flow.llm.layout import Layout
from trustgraph_flow.llm.prose import prose_spans

MAX_EDGES = 40  # a dense chunk states more than 20 facts; under the reply schema's 50
MAX_APPOSITION = 14  # tokens between an apposition's commas
Fact = tuple[str, str, str, bool]


@dataclass(frozen=True)
class Edge:
    """One extracted relationship; ``o_literal`` marks a value rather than an entity."""

    s: str
    p: str
    o: str
    o_literal: bool = False
    quote: str = ""  # the sentence it was read from, exactly as it is in the text

    def as_json(self) -> dict[str, str | bool]:
        return asdict(self)  # s, p, o, o_literal, quote


def _apposition(subject: str, tokens: list[str], start: int) -> tuple[list[Fact], int]:
    """', an engineer from Leeds,' / ', who was born in Leeds,' after a subject: what it
    states, and where the main clause goes on (``start`` when there is none)."""
    if start >= len(tokens) or tokens[start] != ",":
        return [], start
    stop = next(
        (
            i
            for i in range(start + 1, min(len(tokens), start + MAX_APPOSITION + 2))
            if tokens[i] == ","
        ),
        None,
    )
    if stop is None or stop == start + 1 or stop + 1 >= len(tokens):
        return [], start
    body = tokens[start + 1 : stop]
    if not all(is_word(t) or t.isdigit() for t in body) or is_cap(body[0]):
        return [], start
    if body[0].lower() in ("who", "which"):
        read = active_facts(subject, body, 1)
    elif is_participle(body[0]):  # ", built by Henry Willis in 1880,"; ", cast in 1620,"
        read = passive_facts(subject, ["was", *body], 0) if "by" in body else None
    elif body[0].lower() in ARTICLES:
        read = active_facts(subject, ["is", *body], 0)
    else:
        return [], start
    return (read.facts if read else []), stop + 1


def _skip_adverbs(tokens: list[str], i: int) -> int:
    while i < len(tokens) and tokens[i].lower() in ADVERBS and tokens[i].lower() not in NEGATIONS:
        i += 1
    return i


def _verb_after(tokens: list[str], i: int) -> bool:
    """Whether a verb comes at ``i``, past adverbs ("…for Windows Vista and later": none)."""
    verb = _skip_adverbs(tokens, i)
    return verb < len(tokens) and looks_verb(tokens[verb])


def _clause(subjects: list[str], tokens: list[str], start: int, depth: int = 0) -> list[Fact]:
    """The facts of the clause after ``subjects``, and of one joined to it by 'and'."""
    start = _skip_adverbs(tokens, start)
    facts: list[Fact] = []
    end = start
    for subject in subjects:
        read = active_facts(subject, tokens, start)
        if read is None:
            return facts
        facts += read.facts
        end = read.end
    if depth < 2:
        facts += _joined(subjects, tokens, end, depth)
    return facts


def _joined(subjects: list[str], tokens: list[str], end: int, depth: int) -> list[Fact]:
    """'…, and Hale built the mill' / '… and later designed the viaduct' / '…, and he…'."""
    j = end + (end < len(tokens) and tokens[end] == ",")
    if j > end and _passive_goes_on(tokens, j):  # "owned by AT&T, created by Korn, and is…"
        rest = ["was", *tokens[j:]]
        reads = [passive_facts(s, rest, 0) for s in subjects]  # a list's middle item only
        if all(r is not None and rest[r.end : r.end + 2] in ([",", "and"], ["and"]) for r in reads):
            return [f for read in reads if read is not None for f in read.facts]
    if j >= len(tokens) or tokens[j].lower() != "and" or j + 1 >= len(tokens):
        return []
    j += 1
    if tokens[j].lower() in PRONOUNS:
        return _clause(subjects, tokens, j + 1, depth + 1)
    if _passive_goes_on(tokens, j):  # "was designed by Hart and built by local masons"
        reads = [passive_facts(s, ["was", *tokens[j:]], 0) for s in subjects]
        return [f for read in reads if read is not None for f in read.facts]
    if _verb_after(tokens, j):
        return _clause(subjects, tokens, j, depth + 1)
    k = noun_phrase(tokens, j + (tokens[j].lower() in ARTICLES))
    if k > j and _verb_after(tokens, k):
        new = [phrase(tokens, j + (tokens[j].lower() in ARTICLES), k)]
        return _clause(new, tokens, k, depth + 1)
    return []


def _passive_goes_on(tokens: list[str], j: int) -> bool:
    """Whether the clause joined at ``j`` is a participle and its agent after a passive."""
    if j + 2 >= len(tokens) or not is_participle(tokens[j]) or tokens[j + 1].lower() != "by":
        return False
    return (
        any(tokens[i].lower() in COPULAS and is_participle(tokens[i + 1]) for i in range(j - 1))
        and passive_facts("", ["was", *tokens[j:]], 0) is not None
    )


# a clause with a pronoun for the sentence's subject after these; 'because' only with a name
AFTER_COMMA = frozenset({"where", "when", "while", "whereas", "but", "and"})
SUBCLAUSE = AFTER_COMMA | {"because"}


def _subclauses(subjects: list[str], tokens: list[str]) -> list[Fact]:
    """Clauses after a comma with a subject of their own: '…, where the Penhale Mine was
    dug in 1790', '…, and squid runs as user proxy' (a lower-case noun right before its
    verb), '…, where she taught at…' (a pronoun: the sentence's subject)."""
    facts: list[Fact] = []
    for j in range(1, len(tokens) - 2):
        if tokens[j - 1] != "," or tokens[j].lower() not in SUBCLAUSE:
            continue
        k = j + 1
        if tokens[k].lower() in PRONOUNS:  # "…, but it is important to…": an empty 'it'
            said = subjects and tokens[j].lower() in AFTER_COMMA
            if said and not empty_it(tokens[k:]):
                facts += _clause(subjects, tokens, k + 1, depth=2)
            continue
        k += tokens[k].lower() in ARTICLES
        end = noun_phrase(tokens, k)
        end = named_kind(tokens, end) if end > k else end  # "…, because GNU gettext provides"
        if end == k:
            end = common_noun(tokens, k)
            end = end if end < len(tokens) and known_verb(tokens[end]) else k
        if end > k and _verb_after(tokens, end):
            facts += _clause([phrase(tokens, k, end)], tokens, end, depth=2)
    return facts


def _facts(tokens: list[str], memory: Memory, opening: bool = False) -> list[Fact]:
    """``opening``: the sentence surely starts where it does (``extract_lower``)."""
    lower = opening and lower_name(tokens)  # "zlib is not subject to…"
    found, start = ([tokens[0]], 1) if lower else subjects(tokens, memory)
    if not found:  # "The msgmerge program…", "For this task GNU gettext…" (``extract_names``)
        found, start = named_subject(tokens, opening, memory)
    if opens_with_description(found, tokens, start) or no_subject(tokens, start):
        found = []  # "Multiple files may be compressed": no name, no fact of one
    facts: list[Fact] = []
    if not found:
        facts = without_subject(tokens)
    elif len(found) == 1:
        facts, start = _apposition(found[0], tokens, start)
    if found:
        facts += _clause(found, tokens, start)
    facts += _subclauses(found, tokens) + relative_facts(tokens)
    memory.heard(found, facts)
    memory.mentioned(tokens)
    return facts


def extract_edges(text: str, limit: int = MAX_EDGES) -> list[Edge]:
    """Edges found in ``text``, at most ``limit``, without duplicates, in text order; read
    again when a definite description's kind is only said after it ("The town was founded
    by…" before "Marrowby is a market town")."""
    memory = Memory(title=opening_title(text))
    edges = _read(text, limit, memory)
    if memory.kinds.named_later():
        edges = _read(text, limit, Memory(kinds=memory.kinds, title=memory.title))
    return edges


def _read(text: str, limit: int, memory: Memory) -> list[Edge]:
    found: dict[tuple[str, str, str], Edge] = {}
    before = (0, 0)
    layout = Layout(text)
    for s, p, o, literal, quote in byline_facts(text):  # a title page's authors
        found.setdefault((s, p, o), Edge(s, p, o, literal, quote))
    for a, b in prose_spans(text):
        sentence = text[a:b]
        for s, p, o, literal in title_facts(text, before, (a, b)):
            found.setdefault((s, p, o), Edge(s, p, o, literal, text[before[0] : b]))
        for s, p, o, literal in notice_facts(sentence):
            found.setdefault((s, p, o), Edge(s, p, o, literal, sentence))
        joined = defined_above(text, before, (a, b))
        quote = text[before[0] : b] if joined else sentence
        if not joined and layout.not_prose(a, b):
            memory.heard([], [])
            before = (a, b)
            continue  # a heading, an option, a table row, code (``layout``)
        read = joined or sentence
        for s, p, o, literal in _facts(sentence_tokens(read), memory, opens_sentence(text, a)):
            if clean(s, p, o, literal) and not misread(s, p, o, literal, read):
                found.setdefault((s, p, o), Edge(s, p, o, literal, quote))
        if is_notice(sentence):
            memory.heard([], [])  # 'It was modified by…' after a notice: not 'Copyright'
        before = (a, b)
        if len(found) >= limit:
            break
    return list(found.values())[:limit]
