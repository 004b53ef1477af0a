"""Telling verbs from other words without a tagger, for the offline extractor: a predicate
starts with a verb ("The Marrowby site now…" has none: 'site' is no relation), and a passive
("was designed by Y") is read as Y's act, in the past tense ("Y designed X")."""

from __future__ import annotations

AUXILIARIES = frozenset(
    "is was are were be been has have had does did do can could will would shall should "
    "may might must".split()
)
NEGATIONS = frozenset({"not", "never", "no", "neither", "nowhere"})
# Words between a subject and its verb, or a copula and what follows, that are no object.
ADVERBS = frozenset(
    """now still also then once later often always already soon today formerly originally
    first again yet thus however sometimes usually mostly mainly largely only even just too
    very here there subsequently eventually currently presently previously initially finally
    together jointly therefore hereby thereby moreover furthermore""".split()
)
# Base forms a plural subject takes ("The Hale brothers own a mill").
BASE_VERBS = frozenset(
    """lie flow make use hold run grow live work produce contain include cover form remain
    become serve provide require allow give take keep carry supply border connect join link
    cross own build write design found lead found teach study visit speak belong consist
    share meet stand sit reach feed drain rise enter leave open close sell buy export import
    mine farm raise employ house store protect mark host attract span read come""".split()
)
# Irregular past participles and the past tense their active sentence takes.
PARTICIPLE_PAST = {
    "written": "wrote",
    "built": "built",
    "rebuilt": "rebuilt",
    "made": "made",
    "drawn": "drew",
    "given": "gave",
    "taken": "took",
    "undertaken": "undertook",
    "known": "knew",
    "led": "led",
    "begun": "began",
    "sung": "sang",
    "won": "won",
    "held": "held",
    "run": "ran",
    "seen": "saw",
    "overseen": "oversaw",
    "found": "found",
    "bought": "bought",
    "sold": "sold",
    "grown": "grew",
    "shown": "showed",
    "thrown": "threw",
    "chosen": "chose",
    "spoken": "spoke",
    "brought": "brought",
    "taught": "taught",
    "paid": "paid",
    "sent": "sent",
    "kept": "kept",
    "left": "left",
    "struck": "struck",
    "driven": "drove",
    "broken": "broke",
    "hidden": "hid",
    "laid": "laid",
    "told": "told",
    "read": "read",
    "set": "set",
    "put": "put",
    "hung": "hung",
    "fed": "fed",
    "bred": "bred",
    "met": "met",
    "lit": "lit",
    "cast": "cast",
    "dug": "dug",
    "spun": "spun",
    "woven": "wove",
    "withdrawn": "withdrew",
    "forbidden": "forbade",
    "eaten": "ate",
    "frozen": "froze",
    "lost": "lost",
    "done": "did",
    "gone": "went",
    "said": "said",
    "heard": "heard",
    "meant": "meant",
    "understood": "understood",
    "bound": "bound",
    "spent": "spent",
}
# Past tenses that are not '-ed' ("Rook wrote a treatise").
IRREGULAR_PAST = frozenset(PARTICIPLE_PAST.values()) | frozenset(
    """became came went got did said felt heard meant lost rose fell flew knew saw stood sat
    lay spent drove rode wore chose froze stole woke swore tore bore shone bent lent dealt
    sought fought caught fled sped slid hid bit oversaw gave took wrote drew grew threw
    spoke broke ate beat began sang ran won""".split()
)


def is_participle(word: str) -> bool:
    """'designed', 'written', 'built': a word a passive's verb can be."""
    low = word.lower()
    return low in PARTICIPLE_PAST or (low.endswith("ed") and len(low) > 3 and low.isalpha())


def past_of(participle: str) -> str:
    """The past tense of a participle ('written' → 'wrote', 'designed' → 'designed')."""
    low = participle.lower()
    return PARTICIPLE_PAST.get(low, low)


def known_verb(word: str) -> bool:
    """Whether a lower-case word is a verb of the lists (or '-s', '-es' of one, or '-ed'),
    not an auxiliary: after a lower-case noun ('squid runs'), where '-s' alone may be a
    plural noun ('attribution notices')."""
    low = word.lower()
    if not (low.isalpha() and word.islower()) or low in AUXILIARIES:
        return False
    stems = (low, low[:-1] if low.endswith("s") else "", low[:-2] if low.endswith("es") else "")
    return (
        any(stem in BASE_VERBS for stem in stems)
        or low in IRREGULAR_PAST
        or (low.endswith("ed") and len(low) > 3)
    )


def looks_verb(word: str) -> bool:
    """Whether a lower-case word can start a predicate: an auxiliary, a known verb, a past
    tense ('-ed') or a third-person present ('-s', not '-ss' or '-us')."""
    low = word.lower()
    if not low.isalpha() or word[:1].isupper():
        return False
    if low in AUXILIARIES or low in BASE_VERBS or low in IRREGULAR_PAST:
        return True
    if low.endswith("ed") and len(low) > 3:
        return True
    return low.endswith("s") and len(low) > 3 and not low.endswith(("ss", "us", "is", "ous"))


# Endings of manner and sentence adverbs ('historically', 'generally', 'probably'), which
# few names have (unlike a bare '-ly': Italy, Emily).
ADVERB_ENDINGS = (
    "ally",
    "ently",
    "antly",
    "ously",
    "ively",
    "ately",
    "edly",
    "ingly",
    "fully",
    "ably",
    "ibly",
)


def looks_adverb(word: str) -> bool:
    """Whether a word is an adverb: a known one, or one of the adverbs' endings."""
    low = word.lower()
    return low.isalpha() and (low in ADVERBS or (len(low) > 6 and low.endswith(ADVERB_ENDINGS)))
