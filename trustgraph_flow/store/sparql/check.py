"""Which SPARQL text may run on a store: a query (not an update) that never calls SERVICE.

pyoxigraph 0.5 cannot switch SERVICE off (its ``Store.query`` has no such option, and
SERVICE fetches any URL from the store's host) nor hand out its parse. So the text is
parsed by rdflib's SPARQL grammar and the parse tree is searched for a
``ServiceGraphPattern``; an update parses only as an update. The check fails closed:
text rdflib cannot read is refused, never run.

Two differences between rdflib and pyoxigraph are closed off first, so both read the
same structure:

- rdflib expands ``\\u``/``\\U`` escapes in the whole text before parsing (so
  ``"\\u0022"`` ends a string for rdflib but not for pyoxigraph, which would hide a
  SERVICE inside what rdflib reads as one long string). Text holding a backslash
  followed by ``u``/``U`` is refused: write the character itself.
- rdflib does not know RDF 1.2 triple terms. For the check only, ``<<(``/``)>>`` (and
  ``<<``/``>>``) become parentheses (a collection, the same shape of term) and the RDF 1.2
  functions (``isTRIPLE``, ``TRIPLE``, ``SUBJECT`` …) become IRI function calls. These
  edits only turn ``<``, ``>`` into spaces and parentheses and add closed ``<…>`` IRIs,
  so they cannot open a string, comment or IRI around a keyword: what rdflib then reads
  has the same SERVICE clauses pyoxigraph reads.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any

from pyparsing import ParseBaseException
from rdflib.plugins.sparql.algebra import translatePrologue
from rdflib.plugins.sparql.parser import parseQuery, parseUpdate
from rdflib.plugins.sparql.parserutils import CompValue

from trustgraph_base.errors import ErrorType, ServiceError

_RDF12_FUNCTIONS = re.compile(
    r"(?<![\w:?$.\-])(isTRIPLE|TRIPLE|SUBJECT|PREDICATE|OBJECT|hasLANGDIR|hasLANG|LANGDIR|STRLANGDIR)(?=\s*\()",
    re.IGNORECASE,
)
_lock = threading.Lock()  # pyparsing's parser objects are shared module state


_FORMS = {
    "SelectQuery": "select",
    "AskQuery": "ask",
    "ConstructQuery": "construct",
    "DescribeQuery": "describe",
}


@dataclass(frozen=True)
class Checked:
    """A query the check let through: its form and how big its graph pattern is."""

    form: str  # select, ask, construct, describe
    size: int  # triple patterns and other elements of group patterns (FILTER, OPTIONAL …)
    depth: int  # group patterns nested in one another, at the deepest
    # FROM and FROM NAMED as (default graphs, named graphs); None: the text names none
    dataset: tuple[list[str], list[str]] | None = None


def check_query(text: str) -> str:
    """The query's form (``select``, ``ask``, ``construct``, ``describe``); ``ServiceError``
    for an update, a SERVICE call, or text the check cannot read."""
    return inspect_query(text).form


def inspect_query(text: str) -> Checked:
    """``check_query``, with the size and depth of the query's graph pattern (``Checked``)."""
    if "\\u" in text or "\\U" in text:
        raise ServiceError(
            ErrorType.SPARQL_UNSUPPORTED,
            "\\u and \\U escapes are not accepted here: write the character itself",
        )
    view = rdf11_view(text)
    try:
        with _lock:
            tree = parseQuery(view)
    except ParseBaseException as exc:
        if _is_update(view):
            raise ServiceError(
                ErrorType.SPARQL_UPDATE_REFUSED,
                "the store is read-only here: only SELECT, ASK, CONSTRUCT and DESCRIBE run",
            ) from None
        raise ServiceError(
            ErrorType.SPARQL_SYNTAX, f"SPARQL syntax error at {exc.lineno}:{exc.col}: {exc.msg}"
        ) from None
    except RecursionError:
        raise ServiceError(
            ErrorType.SPARQL_SYNTAX, "the query is nested too deeply to check"
        ) from None
    service, size, depth = shape(tree)
    if service:
        raise ServiceError(
            ErrorType.SPARQL_SERVICE_REFUSED, "SERVICE (federated query) is not allowed"
        )
    form = _FORMS.get(getattr(tree[1], "name", ""), "select")
    return Checked(form, size, depth, dataset_of(tree))


def dataset_of(tree: Any) -> tuple[list[str], list[str]] | None:
    """The query's FROM and FROM NAMED graphs as absolute IRIs (prefixes and BASE applied)."""
    if "datasetClause" not in tree[1]:  # (a CompValue's ``get`` answers a missing key's name)
        return None
    clauses = tree[1]["datasetClause"]
    found: tuple[list[str], list[str]] = ([], [])
    try:
        prologue = translatePrologue(tree[0], None)
        for clause in clauses:
            default = "default" in clause
            found[0 if default else 1].append(
                str(prologue.absolutize(clause["default" if default else "named"]))
            )
    except Exception as exc:  # an undeclared prefix
        raise ServiceError(ErrorType.SPARQL_SYNTAX, f"SPARQL syntax error in FROM: {exc}") from None
    return found


SERVER_DEPTH = 100  # group patterns nested deeper than this are not sent to a SPARQL server


def fits_server(checked: Checked, max_size: int) -> None:
    """``ServiceError`` unless a SPARQL server can take the query whole: ``oxigraph serve``
    0.5 parses on a 2 MB thread stack and aborts, for every user at once, on ~650 triple
    patterns, ~3,000 FILTERs or ~1,000 nested groups (docs/store.md, "Queries")."""
    if max_size and checked.size > max_size:
        raise ServiceError(
            ErrorType.SPARQL_UNSUPPORTED,
            f"the query has {checked.size} triple patterns and filters, over the "
            f"{max_size} the store's SPARQL server takes (--server-max-patterns)",
        )
    if checked.depth > SERVER_DEPTH:
        raise ServiceError(
            ErrorType.SPARQL_UNSUPPORTED,
            f"the query nests {checked.depth} group patterns, over the {SERVER_DEPTH} "
            "the store's SPARQL server takes",
        )


def rdf11_view(text: str) -> str:
    """The text with RDF 1.2 terms and functions in SPARQL 1.1 shapes (see the module docstring)."""
    for token, plain in (("<<(", " ( "), (")>>", " ) "), ("<<", " ( "), (">>", " ) ")):
        text = text.replace(token, plain)
    return _RDF12_FUNCTIONS.sub(lambda m: f" <urn:x-rdf12:{m.group(1).lower()}>", text)


def _is_update(view: str) -> bool:
    try:
        with _lock:
            parseUpdate(view)
    except (ParseBaseException, RecursionError):
        return False
    return True


def calls_service(tree: Any) -> bool:
    """Whether a parse tree holds a SERVICE pattern anywhere."""
    return shape(tree)[0]


def shape(tree: Any) -> tuple[bool, int, int]:
    """(whether it calls SERVICE, its ``Checked.size``, its ``Checked.depth``), walked
    without recursion: one pass over the parse tree."""
    service, size, deepest = False, 0, 0
    stack: list[tuple[Any, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, CompValue):
            if node.name == "ServiceGraphPattern":
                service = True
            elif node.name == "TriplesBlock":  # each item: s p o [s p o …] of one subject
                size += sum(len(item) // 3 for item in node.get("triples") or ())
            elif node.name == "GroupGraphPatternSub":
                depth += 1
                deepest = max(deepest, depth)
                size += sum(1 for part in node.get("part") or () if _not_triples(part))
            stack.extend((child, depth) for child in node.values())
        elif isinstance(node, dict):
            stack.extend((child, depth) for child in node.values())
        elif isinstance(node, list | tuple) or type(node).__name__ == "ParseResults":
            stack.extend((child, depth) for child in node)
    return service, size, deepest


def _not_triples(part: Any) -> bool:
    return not (isinstance(part, CompValue) and part.name == "TriplesBlock")
