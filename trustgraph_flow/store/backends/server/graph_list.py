"""How the server backend lists traces: each question is filed in time buckets (the prefixes of
its sort key: day, hour, minute, second), walked newest first; a bucket of at most ``PROBE``
members is read whole, a bigger one through its children (see ``graph_index.py``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from urllib.parse import quote

import pyoxigraph as ox

from trustgraph_flow.store.backends.server.graph_reads import _P, IX, GraphReads, _row
from trustgraph_flow.store.backends.trace_list import in_window, matches, page_of
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.core.rows import TraceFilter, TraceRow
from trustgraph_flow.store.sparql.client import literal, term

LEVELS = (10, 13, 16, 19)  # day, hour, minute, second of the sort key
PROBE = 256  # a bucket with at most this many members is read whole


@functools.lru_cache(maxsize=4096)
def bucket_node(level: int, prefix: str) -> ox.NamedNode:
    """The node of a bucket (a batch names the same few buckets many times over)."""
    return named(f"{IX}b{level}:{quote(prefix, safe='')}")


_BUCKET = {level: named(f"{IX}b{level}") for level in LEVELS}  # a question's bucket predicates


class GraphList(GraphReads):
    """The trace list of a collection's index graph: newest first, a page, the expired."""

    # --- the list ----------------------------------------------------------------------

    def _members(self, level: int, prefix: str) -> list[tuple[str, str]]:
        """(sort key, root) of a bucket's members ("" for the timeless bucket's), in one request.

        Only for a bucket read whole: a join of the bucket pattern with ``ix:sort`` is a lookup
        per member, which a ``LIMIT`` does not cut short (0.45 s for 1M members).
        """
        members = f"?r {term(_BUCKET[level])} {literal(prefix)}"
        if prefix == "":  # no key to read: every member is timeless here (``_top_level``)
            return [("", sol["r"].value) for sol in self._select(members, "?r")]
        found = self._select(f"{members} . ?r {term(_P['sort'])} ?s", "?r ?s")
        return [(s.value, r.value) for r, s in found]

    def _children(self, level: int, prefix: str) -> list[str]:
        found = self._select(f"{term(bucket_node(level, prefix))} {term(_P['child'])} ?c", "?c")
        return [sol["c"].value for sol in found]

    def _probe(self, level: int, prefix: str) -> tuple[bool, list[str]]:
        """Whether a bucket has at most ``PROBE`` members, and its children, in one request.

        The members are counted, not returned (a ``LIMIT``-ed equality lookup, stopped early):
        a big bucket, the common case, costs no rows; a small one is then read by ``_members``.
        """
        members = f"?r {term(_BUCKET[level])} {literal(prefix)}"
        children = f"{term(bucket_node(level, prefix))} {term(_P['child'])} ?c"
        found = self._select(
            f"{{ SELECT (COUNT(*) AS ?n) WHERE {{ {{ SELECT ?r WHERE {{ {members} }} "
            f"LIMIT {PROBE + 1} }} }} }} UNION {{ {children} }}",
            "?n ?c",
        )
        n = next(int(sol["n"].value) for sol in found if sol["n"] is not None)
        return n <= PROBE, [sol["c"].value for sol in found if sol["c"] is not None]

    def _walk(self, newest: bool, skip: Callable[[str], bool]) -> Iterator[tuple[str, str]]:
        """(sort key, root) of every indexed question, newest (or oldest) first; ``skip(prefix)``
        prunes buckets. Sub-traces are in it too: the caller drops them with their facts."""
        stack: list[tuple[int, str]] = [(0, "")]
        while stack:
            level, prefix = stack.pop()
            nxt = LEVELS.index(level) + 1 if level else 0
            if nxt == len(LEVELS):  # a second: read whole
                yield from sorted(self._members(level, prefix), reverse=newest)
                continue
            if level:
                small, found = self._probe(level, prefix)
                if small:
                    yield from sorted(self._members(level, prefix), reverse=newest)
                    continue
            else:
                found = self._children(level, prefix)
            children = [c for c in found if not skip(c)]
            children.sort(reverse=not newest)  # the stack pops the last first: the walk's next
            stack.extend((LEVELS[nxt], c) for c in children)

    def _top_level(self, pairs: list[tuple[str, str]]) -> Iterator[tuple[str, TraceRow]]:
        """The top-level questions among (key, root) pairs, in their order."""
        found = self.facts_of(r for _, r in pairs)
        for key, r in pairs:
            f = found.get(r)
            if f is None or "q" not in f or "parent" in f:
                continue
            if key == "" and f.get("sort"):
                continue  # filed before its time was known: listed under its time
            yield key, _row(r, f)

    def _rows_in_order(
        self, pairs: Iterator[tuple[str, str]], batch: Callable[[], int]
    ) -> Iterator[tuple[str, TraceRow]]:
        """The top-level rows of a walk, their facts fetched ``batch()`` roots at a time."""
        pending: list[tuple[str, str]] = []
        for pair in pairs:
            pending.append(pair)
            if len(pending) >= batch():
                yield from self._top_level(pending)
                pending = []
        yield from self._top_level(pending)

    def newest(self, limit: int) -> list[TraceRow]:
        """The newest top-level traces, newest first."""
        return self.page(limit, TraceFilter())[0]

    def page(
        self, limit: int, flt: TraceFilter, after: tuple[str, str] | None = None
    ) -> tuple[list[TraceRow], tuple[str, str] | None]:
        """One page of top-level traces, newest first, and the key of its last row when there is more."""

        def skip(prefix: str) -> bool:
            if after is not None and prefix > after[0]:
                return True  # every key in it is at least the prefix: newer than the cursor
            if flt.until is not None and prefix >= flt.until:
                return True
            return flt.since is not None and prefix + "\uffff" < flt.since

        def wanted(pair: tuple[str, str]) -> bool:
            return (after is None or pair < after) and in_window(pair[0], flt)

        found: list[tuple[str, TraceRow]] = []
        pairs = (p for p in self._walk(True, skip) if wanted(p))
        # A little over what is missing: sub-traces and filtered rows drop out of each batch.
        need = lambda: max(16, (limit + 1 - len(found)) * 5 // 4)  # noqa: E731
        for key, row in self._rows_in_order(pairs, need):
            if matches(key, row, flt):
                found.append((key, row))
                if len(found) > limit:
                    break
        return page_of(found, limit)

    def expired(self, before: str) -> list[str]:
        """Top-level traces whose sort key is before ``before``, oldest first."""
        pairs = (p for p in self._walk(False, lambda prefix: prefix > before) if p[0] < before)
        out = []
        for key, row in self._rows_in_order(pairs, lambda: 512):
            if key == "":
                continue  # without a time: never purged by age
            out.append(row.id)
        return out
