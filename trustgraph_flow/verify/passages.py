"""Where a claim's words are in the evidence it cites: the *passage* — a few consecutive
sentences of one cited text — that holds most of them (docs/rag.md, "Verification").

The claim check (``verify.heuristic``) reads a claim against that passage of each text it
cites, not against the whole of every text: a claim whose words are scattered over a long
chunk is not supported by it ("Valgrind checks programs written in Java" against a manual's
page that names Valgrind in one paragraph and Java in another). Sentences are the
documents' own (``llm.prose``: a hard-wrapped line does not end one, "e.g." does not).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from trustgraph_flow.llm.prose import prose_spans

PASSAGE = 3  # consecutive sentences of one text a claim's words are looked for in


@lru_cache(maxsize=1024)
def passages(text: str) -> tuple[str, ...]:
    """``text``'s passages: each run of ``PASSAGE`` consecutive sentences (the whole text
    when it has no more), each as the text has it."""
    spans = prose_spans(text)
    if len(spans) <= PASSAGE:
        return (text,)
    return tuple(
        text[spans[i][0] : spans[i + PASSAGE - 1][1]] for i in range(len(spans) - PASSAGE + 1)
    )


def best_passages(
    words: Sequence[str], texts: Sequence[str], stems: Callable[[str], frozenset[str]]
) -> list[str]:
    """For each of ``texts``, its passage whose ``stems`` hold most of ``words`` (the first
    of those that hold as many): a claim citing several texts may join what each says in one
    place ("… compiled with gcc 9.3.0, … compiled with gcc 7.3.0," citing two chunks), never
    words scattered over one text."""
    out = []
    for text in texts:
        best, most = text, -1
        for passage in passages(text):
            held = stems(passage)
            got = sum(w in held for w in words)
            if got > most:
                best, most = passage, got
        out.append(best)
    return out
