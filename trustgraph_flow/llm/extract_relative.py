"""A relative clause after a name, for the offline extractor (issue 29, recall on plain
prose): "…provides the msgmerge program, which prepares a message catalog…" states what the
msgmerge program does, "…constrained by PKWare, which is a commercial company" what PKWare is,
"…designed by Amos Hart, who also built the mill" what Amos Hart did.

The name is what ends right before the comma: capitalised words, or up to three lower-case
ones of which one the lexicon does not know (a program's name, 'msgmerge program'). A common
noun there ('…uses a lot of memory, which is a problem') is left alone: 'which' may stand for
the whole clause before it.
"""

from __future__ import annotations

from trustgraph_flow.llm.extract_clause import NAME_JOINERS, active_facts, is_cap
from trustgraph_flow.llm.extract_verbs import ADVERBS, NEGATIONS, is_participle
from trustgraph_flow.llm.extract_words import ARTICLES
from trustgraph_flow.llm.lexicon import parts_of_speech
from trustgraph_flow.llm.text import STOPWORDS

Fact = tuple[str, str, str, bool]
RELATIVES = frozenset({"which", "who"})
PLACES = frozenset({"in", "into", "on", "at", "from"})
MAX_LOWER_NAME = 3


def _name_before(tokens: list[str], comma: int) -> str:
    """The name that ends right before ``tokens[comma]``, else '' (a list's item or a
    place's name: 'which' may stand for the list, or for what is in the place)."""
    name = _name_at(tokens, comma)
    k = comma - len(name.split())
    if k > 1 and tokens[k - 1].islower() and tokens[k - 2].lower() in ARTICLES:
        return ""  # "The simplified API, which…": the name is a longer description's noun
    k -= k > 0 and tokens[k - 1].lower() in ARTICLES
    if not name or k == 0 or tokens[k - 1] == "," or tokens[k - 1].lower() in PLACES:
        return ""
    by = tokens[k - 1].lower() == "by" and k > 1 and not is_participle(tokens[k - 2])
    if by and tokens[comma + 1].lower() == "which":
        return ""  # "minizip by Giles Vollant, which is found in…": the work, not its author
    return name


def _name_at(tokens: list[str], comma: int) -> str:
    k = comma
    while k > 0 and (
        is_cap(tokens[k - 1])
        or (tokens[k - 1].lower() in NAME_JOINERS and k > 1 and is_cap(tokens[k - 2]))
    ):
        k -= 1
    if k < comma and tokens[k].lower() not in NAME_JOINERS:
        return " ".join(tokens[k:comma])
    while k > 0 and comma - k < MAX_LOWER_NAME:
        word = tokens[k - 1]
        if not (word.isalnum() and word.islower()) or word in STOPWORDS:
            break
        k -= 1
    words = tokens[k:comma]
    if any(not parts_of_speech(w) and w.isalpha() and len(w) > 2 for w in words):
        return " ".join(words)
    return ""


def relative_facts(tokens: list[str]) -> list[Fact]:
    """The facts of each ', which …' or ', who …' after a name."""
    facts: list[Fact] = []
    for j in range(2, len(tokens) - 2):
        if tokens[j - 1] != "," or tokens[j].lower() not in RELATIVES:
            continue
        name = _name_before(tokens, j - 1)
        verb = j + 1
        while verb < len(tokens) and tokens[verb].lower() in ADVERBS - NEGATIONS:
            verb += 1  # "…, who also built the mill"
        read = active_facts(name, tokens, verb) if name else None
        if read is not None:
            facts += read.facts
    return facts
