"""Column order for ``SELECT *``: the order the variables first appear in the query.

Oxigraph lists the variables of ``SELECT *`` sorted by name (``o p s``); people expect the
order they wrote them in (``s p o``), and SPARQL leaves it to the implementation. The variable set stays Oxigraph's; only the order
comes from walking rdflib's parse tree, so strings, IRIs and comments are never mistaken
for variables.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def star_order(query: str) -> list[str] | None:
    """The variables of a ``SELECT *`` query in the order written; None for any other query.

    Call it before the query runs: rdflib's parser keeps exceptions (and so frames) in its
    cache, and no frame may hold a pyoxigraph result that another thread would then free.
    """
    try:
        from rdflib.plugins.sparql.parser import parseQuery

        select = parseQuery(query)[1]
    except Exception:  # rdflib does not know every construct (e.g. RDF 1.2): keep Oxigraph's
        return None
    if getattr(select, "name", "") != "SelectQuery" or "projection" in select:
        return None
    first: list[str] = []
    for name in _variables(select):
        if name not in first:
            first.append(name)
    return first


def in_order(names: list[str], order: list[str] | None) -> list[str]:
    """Oxigraph's variable ``names`` (the right set) in ``order`` where it has them."""
    if order is None or len(names) < 2:
        return names
    wanted = set(names)
    first = [n for n in order if n in wanted]
    return first + [n for n in names if n not in first]


def _variables(node: Any) -> Iterator[str]:
    """Every variable in the parse tree, depth first, in the order written."""
    from rdflib.term import Variable

    if isinstance(node, Variable):
        yield str(node)
    elif isinstance(node, dict):
        for value in node.values():
            yield from _variables(value)
    elif isinstance(node, list | tuple) or type(node).__name__ == "ParseResults":
        for value in node:
            yield from _variables(value)
