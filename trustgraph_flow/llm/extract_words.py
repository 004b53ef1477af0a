"""The small English vocabulary the offline engine's edge heuristic (``extract``) reads by."""

from __future__ import annotations

ARTICLES = frozenset({"the", "a", "an"})
# A clause starts here: an object phrase ends before it.
CLAUSE_WORDS = frozenset(
    {
        "before",
        "after",
        "when",
        "while",
        "because",
        "until",
        "since",
        "although",
        "though",
        "unless",
        "whereas",
        "where",
        "which",
        "who",
        "that",
        "and",
        "or",
        "but",
        "then",
        "whether",
    }
)
# Prepositions that may follow a verb in a predicate ("worked as", "lives in").
VERB_PARTICLES = frozenset(
    {"as", "in", "at", "on", "for", "with", "to", "from", "into", "of", "within"}
)  # 'is provided within build/cmake': where it is
PREPOSITIONS = frozenset(
    "of on in to from among with for at by into under about between across against".split()
)
PRONOUNS = frozenset({"he", "she", "it", "they"})
MODALS = frozenset("can could will would shall should may might must".split())
# Never a subject or an object: pronouns, demonstratives, indefinites and adverbs.
JUNK = frozenset(
    """he she it they him her them his its their we us you i me this that these those
    everyone everybody everything someone somebody something anyone anybody anything
    nobody nothing none one ones another other others such each all both many much most
    some few several now then here there today also still later soon once often always
    never already yet thus however moreover furthermore either neither following whoever
    whatever whichever my your our little e.g i.e etc cf vs viz due itself himself herself
    themselves yourself ourselves""".split()
)
COPULAS = frozenset({"is", "was", "are", "were"})
# A predicate never starts with one of these: "Pierre and Marie" is no relation.
NOT_VERBS = frozenset(
    {
        "and",
        "or",
        "but",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "as",
        "the",
        "a",
        "an",
        "nor",
        "than",
        "that",
        "which",
        "who",
        "around",
        "about",
        "near",
        "into",
        "over",
        "under",
        "between",
        "through",
        "during",
        "before",
        "after",
        "since",
        "until",
        "against",
        "among",
        "without",
        "within",
        "across",
        "behind",
        "beyond",
        "like",
        "per",
        "via",
        "circa",
        "toward",
        "towards",
        "upon",
        "along",
        "throughout",
        "despite",
        "except",
        "beside",
        "besides",
        "then",
        "also",
        "when",
        "while",
        "where",
        "whose",
        "because",
    }
)
