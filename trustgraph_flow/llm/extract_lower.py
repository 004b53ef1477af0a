"""A sentence that opens with a name written in lower case, for the offline extractor (issue
29): programs and libraries are ("zlib is not subject to export controls", "dpkg reads
triggers/Unincorp…"), and a FAQ or a manual about one writes it so in nearly every sentence,
so without this its chunks gave no edge and GraphRAG never reached them.

A sentence opens with a capital, so a lower-case first word that is no function word, adverb
or verb, right before an auxiliary or a known verb, is such a name — when the sentence truly
starts there: after a full stop, a question mark or a colon, or a blank line. A chunk's first
line, or a line after one that did not end its sentence, may be the middle of one ("manager
will reply with…", "option was off by default"): not read so.
"""

from __future__ import annotations

from trustgraph_flow.llm.extract_complement import is_word
from trustgraph_flow.llm.extract_verbs import ADVERBS, AUXILIARIES, known_verb, looks_verb
from trustgraph_flow.llm.text import STOPWORDS

_OPENERS = ".!?:"


def opens_sentence(text: str, at: int) -> bool:
    """Whether a sentence starting at ``at`` of ``text`` starts one for certain: what comes
    before it ends a sentence, or is a blank line; not the text's start (a chunk's may cut
    a sentence)."""
    before = text[:at].rstrip(" \t")
    if not before.strip():
        return False
    if before.endswith("\n") and before[:-1].rstrip(" \t").endswith("\n"):
        return True
    return before.rstrip()[-1] in _OPENERS


def lower_name(tokens: list[str]) -> bool:
    """Whether the tokens open with a name written in lower case ("zlib is…")."""
    if len(tokens) < 3:
        return False
    first = tokens[0]
    if not first[:1].islower() or not is_word(first) or len(first) < 2 or not first.isalnum():
        return False
    if first in STOPWORDS or first in ADVERBS or looks_verb(first):
        return False
    return tokens[1].lower() in AUXILIARIES or known_verb(tokens[1])
