"""Which facts the offline extractor keeps (``clean``): the junk it drops, edge by edge
(docs/llm.md, ``extract-edges``)."""

from __future__ import annotations

from trustgraph_flow.llm.extract_clause import is_cap
from trustgraph_flow.llm.extract_verbs import (
    BASE_VERBS,
    NEGATIONS,
    is_participle,
    known_verb,
    looks_adverb,
    looks_verb,
)
from trustgraph_flow.llm.extract_words import ARTICLES, COPULAS, JUNK, MODALS, PREPOSITIONS
from trustgraph_flow.llm.hollow_labels import hollow, loose

_NOT_VERBS = NEGATIONS | {"longer"}
PERFECT = frozenset({"have", "has", "had"})  # "will no longer → attempt"


def _words(label: str) -> set[str]:
    return {w.lower() for w in label.split()}


# After these a verb comes ("does not grant", "need not include", "may publish"): a
# predicate ending in one has lost its verb to the object.
VERB_NEXT = MODALS | {"do", "does", "did", "need"}
# After one of these and 'to' a verb comes, known or not ('is designed to → cope', 'is
# supposed to → monotonically decrease'): what follows is an act, never a thing.
TO_VERB = frozenset(
    "designed supposed intended meant able unable going expected required allowed permitted"
    " likely used has have had ought".split()  # 'has to → full control' (to have it)
)
# After one of these and 'to' a verb comes ('seeks to → resolve', 'tries to → decompress'):
# a lone word there is the act aimed at, not a thing.
AIM_TO = frozenset(
    "seek try attempt want wish aim hope need intend plan decide fail manage refuse agree"
    " promise tend continue begin start choose learn strive".split()
)
# A relation is not a condition: 'Short → will be used if samples wider than → 8 bits'.
CONDITIONS = frozenset("if unless whether because although though whereas".split())


def _verb_object(p: str, o: str) -> bool:
    """Whether the object starts with the predicate's own verb: the predicate ends where a
    verb must follow ('This License → does not → grant permission', 'Web content → should
    not → owned') or in a participle's 'to' before a known verb ('are designed to → make
    sure'; not 'refers to → set')."""
    words = p.lower().split()
    while len(words) > 1 and (words[-1] in _NOT_VERBS or looks_adverb(words[-1])):
        words.pop()  # "will no longer → attempt": still a modal's verb
    last, before = words[-1], (words[-2] if len(words) > 1 else "")
    first = o.split()[0]
    if not first.islower():
        return False
    return (
        last in VERB_NEXT
        or (last in NEGATIONS and before in VERB_NEXT)
        or (last == "to" and is_participle(before) and known_verb(first))
        or (last == "to" and before in TO_VERB)
        or (last == "to" and _stem(before) in AIM_TO and len(o.split()) == 1)
    )


def _stem(verb: str) -> str:
    """'seeks' → 'seek', 'tries' → 'try', 'aimed' → 'aim'."""
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith("ed") and verb[:-2] in AIM_TO:
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") else verb


def _passive(p: str) -> bool:
    """'is sent', 'was not given': a copula and a participle."""
    words = [w for w in p.lower().split() if w not in NEGATIONS and not looks_adverb(w)]
    return len(words) == 2 and words[0] in COPULAS and is_participle(words[1])


def _reduced_relative(p: str, o: str) -> bool:
    """Whether the predicate's participle, with no auxiliary, describes the subject and the
    sentence's own verb is inside the object: 'Packages uploaded for unstable reach testing
    after ten days' read as 'Packages → uploaded for → unstable reach testing' (a verb of
    the lists between the object's first and last words)."""
    words = p.lower().split()
    if not is_participle(words[0]) or set(words) & COPULAS or set(words) & PERFECT:
        return False
    return any(w in BASE_VERBS for w in o.split()[1:-1])


def clean(s: str, p: str, o: str, literal: bool) -> bool:
    """Whether a fact is worth an edge: no pronoun or adverb as subject or object, no label
    naming nothing (``hollow_labels.loose``), no subject opening with a preposition, a
    predicate starting with a verb and stating no condition, an object that does not repeat
    its subject, no lone participle as an object ('Chlorine → is → added', 'may publish →
    revised', 'is sent → including'), no verb as the object's first word (``_verb_object``),
    no predicate denied by a bare 'not' ('Willing not received by the display', a heading)."""
    if not (s and p and o) or s.lower() in JUNK or o.lower() in JUNK:
        return False
    if loose(s) or hollow(s, subject=True) or (not literal and loose(o)):
        return False  # "As I → said", "I’ve → run", "Sed cannot → export" (``hollow_labels``)
    opening = s.split()[0]
    if opening.lower() in PREPOSITIONS:
        return False  # "In IJG → implementations prior to → v5": an opening phrase
    if opening.islower() and opening.endswith("ing"):
        return False  # "is achieved by copying X": a means, no agent ('copying X → achieved')
    first = p.split()[0]
    if not (looks_verb(first) or first in NEGATIONS) or _words(p) & CONDITIONS:
        return False
    if first == "not":
        return False  # "Willing → not received → display": no auxiliary, no finite verb
    if is_participle(first) and any(w in COPULAS for w in p.split()[1:]):
        return False  # "actual block size → used is → 100000 x": the subject's participle
    if _reduced_relative(p, o):
        return False  # "Packages → uploaded for → unstable reach testing"
    if literal:
        return True
    if _words(o) <= _words(s) and all(is_cap(w) for w in s.split()):
        return False  # a name's own part ("Casimir Rook → designed → Rook")
    if o.lower() == s.lower():
        return False  # "Copyright → holds → copyright" (of "Copyright Copyright notice")
    if _verb_object(p, o):
        return False  # "Installation Information → must → suffice": a verb, not a thing
    # adverbs and an article before it change nothing: 'are → actually determined', 'is a
    # → written' ("Sed is a non-interactive editor, written by…")
    words = [w for w in o.split() if not looks_adverb(w)]
    if not words:
        return False  # "randomisation mechanism → protects → adequately"
    head = words[0] if len(words) == 1 else ""
    lone = bool(head) and not is_cap(head)
    if lone and head.endswith("ing") and _passive(p):
        return False  # "Failed message → is sent → including": a passive takes no object
    # a perfect's auxiliary too: 'Tests → have → shown' ("Tests have shown that…")
    after_copula = p in COPULAS or p.lower().split()[-1] in ARTICLES | PERFECT
    # a participle: after a copula any ('is → added'), else one in '-ed' ('may publish →
    # revised'); an irregular one may be a noun ('refers to → set')
    participle = is_participle(head) and (after_copula or head.lower().endswith("ed"))
    return not (lone and (head.lower().endswith("ly") or participle))
