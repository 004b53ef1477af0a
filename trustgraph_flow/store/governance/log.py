"""The append-only log as quads: entries, tombstones, checkpoints and public keys.

Kept in each collection's own store, in the graph ``urn:tg:integrity`` (beside SPEC's
graphs, never mixed into them), so both backends hold it through the one ``QuadStore``
interface (on a server: the scope's graph ``<scope>:g:urn:tg:integrity``):

    <urn:tg:log:e:{chain}:{seq}> log:record "{entry, sig} as JSON" ;
        log:subject <trace root> ; log:manifest "per-subject digests" ;
        log:tombstone "{reason, time, kid, sig} as JSON" .          # once erased
    <urn:tg:log:chain:{chain}> log:head "{checkpoint} as JSON" .   # replaced at each append
    <urn:tg:log:key:{key id}> log:pem "public key PEM" .

(``log:`` = ``urn:tg:log:``.) Nothing here is trusted for what it says: every entry,
tombstone and checkpoint is signed, and the check (``trustgraph_base.integrity.entries``)
names what an edit of these quads broke. The position of an entry is its IRI's
``{chain}:{seq}``, which the check compares with the ``seq`` the entry signed.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TypeVar

import pyoxigraph as ox
from pydantic import BaseModel, ValidationError

from trustgraph_base.integrity.entries import Checkpoint, Signed, Tombstone
from trustgraph_flow.store.core.backend import QuadStore, remove_quads

GRAPH = ox.NamedNode("urn:tg:integrity")
NS = "urn:tg:log:"
RECORD, SUBJECT, MANIFEST, TOMBSTONE, HEAD, PEM = (
    ox.NamedNode(NS + name)
    for name in ("record", "subject", "manifest", "tombstone", "head", "pem")
)
_ENTRY, _CHAIN = NS + "e:", NS + "chain:"


def _text(term: object) -> str:
    """A literal's text (the log's values are all literals; anything else reads as empty)."""
    return term.value if isinstance(term, ox.Literal) else ""


def entry_node(chain: str, seq: int) -> ox.NamedNode:
    return ox.NamedNode(f"{_ENTRY}{chain}:{seq:012d}")


def position(node: ox.NamedNode) -> tuple[str, int] | None:
    """(chain, seq) of an entry's IRI; None for any other IRI."""
    if not node.value.startswith(_ENTRY):
        return None
    chain, _, seq = node.value[len(_ENTRY) :].rpartition(":")
    return (chain, int(seq)) if seq.isdigit() else None


def append(
    store: QuadStore, signed: list[Signed], manifests: list[str], head: Checkpoint, pem: str
) -> None:
    """Write entries, their manifests and their chain's new checkpoint in one transaction
    (the checkpoints before it are removed now and then: ``prune``)."""
    quads = [
        ox.Quad(ox.NamedNode(_CHAIN + head.chain), HEAD, ox.Literal(head.model_dump_json()), GRAPH)
    ]
    if pem:  # the signing key's public half (empty: written already)
        quads.append(ox.Quad(ox.NamedNode(NS + "key:" + head.kid), PEM, ox.Literal(pem), GRAPH))
    for s, manifest in zip(signed, manifests, strict=True):
        node = entry_node(s.entry.chain, s.entry.seq)
        quads += [
            ox.Quad(node, RECORD, ox.Literal(s.model_dump_json(exclude={"tombstone"})), GRAPH),
            ox.Quad(node, SUBJECT, ox.NamedNode(s.entry.subject), GRAPH),
            ox.Quad(node, MANIFEST, ox.Literal(manifest), GRAPH),
        ]
    store.extend(quads)


def prune(store: QuadStore, chain: str) -> None:
    """Remove every checkpoint of ``chain`` but the newest (the one ``heads`` reads)."""
    found = list(store.quads_for_pattern(ox.NamedNode(_CHAIN + chain), HEAD, None, GRAPH))
    newest = heads(store).get(chain)
    if newest is not None:
        keep = newest.model_dump_json()
        remove_quads(store, [q for q in found if _text(q.object) != keep])


M = TypeVar("M", bound=BaseModel)


def _parsed(model: type[M], term: object) -> M | None:
    """A log value read back; None when it is not one (edited by hand: ``unreadable`` names it,
    and the writer goes on as if it were absent)."""
    try:
        return model.model_validate_json(_text(term))
    except ValidationError:
        return None


def signed_of(store: QuadStore, node: ox.NamedNode, record: object) -> Signed | None:
    """An entry from its record (and its tombstone, read); None when it does not read back."""
    stones = store.quads_for_pattern(node, TOMBSTONE, None, GRAPH)
    return signed_from(record, next((q.object for q in stones), None))


def signed_from(record: object, stone: object | None) -> Signed | None:
    """An entry from its record and its tombstone's (None: it has none); None when it does
    not read back."""
    found = _parsed(Signed, record)
    if found is None or stone is None:
        return found
    return found.model_copy(update={"tombstone": _parsed(Tombstone, stone)})


def read(store: QuadStore, node: ox.NamedNode) -> Signed | None:
    for q in store.quads_for_pattern(node, RECORD, None, GRAPH):
        return signed_of(store, node, q.object)
    return None


def unreadable(store: QuadStore, records: bool = True) -> list[str]:
    """The log's records (unless not ``records``), tombstones and checkpoints that do not
    read back, named."""
    kinds: list[tuple[ox.NamedNode, type[BaseModel], str]] = [
        (TOMBSTONE, Tombstone, "tombstone"),
        (HEAD, Checkpoint, "checkpoint"),
    ]
    if records:
        kinds.insert(0, (RECORD, Signed, "entry"))
    return [
        f"the {what} of {q.subject} cannot be read: it was edited by hand"
        for pred, model, what in kinds
        for q in store.quads_for_pattern(None, pred, None, GRAPH)
        if _parsed(model, q.object) is None
    ]


def of_subject(store: QuadStore, subject: str) -> list[tuple[ox.NamedNode, Signed]]:
    """Every entry that signed ``subject`` (a trace signed again has several), as stored."""
    out = []
    for q in store.quads_for_pattern(None, SUBJECT, ox.NamedNode(subject), GRAPH):
        if isinstance(q.subject, ox.NamedNode):
            found = read(store, q.subject)
            if found is not None:
                out.append((q.subject, found))
    return out


def manifest(store: QuadStore, node: ox.NamedNode) -> str | None:
    for q in store.quads_for_pattern(node, MANIFEST, None, GRAPH):
        return _text(q.object)
    return None


def entries(store: QuadStore) -> dict[str, list[tuple[int, Signed]]]:
    """Every entry by chain, each with the position its IRI gives it."""
    out: dict[str, list[tuple[int, Signed]]] = defaultdict(list)
    stones = {
        q.subject: _parsed(Tombstone, q.object)
        for q in store.quads_for_pattern(None, TOMBSTONE, None, GRAPH)
    }
    for q in store.quads_for_pattern(None, RECORD, None, GRAPH):
        where = position(q.subject) if isinstance(q.subject, ox.NamedNode) else None
        if where is None:
            continue
        signed = _parsed(Signed, q.object)
        if signed is None:
            continue
        if stones.get(q.subject) is not None:
            signed = signed.model_copy(update={"tombstone": stones[q.subject]})
        out[where[0]].append((where[1], signed))
    return dict(out)


def heads(store: QuadStore) -> dict[str, Checkpoint]:
    """Each chain's checkpoint: the newest of those not yet pruned."""
    out: dict[str, Checkpoint] = {}
    for q in store.quads_for_pattern(None, HEAD, None, GRAPH):
        head = _parsed(Checkpoint, q.object)
        if head is None:
            continue
        if head.chain not in out or head.seq > out[head.chain].seq:
            out[head.chain] = head
    return out


def keys(store: QuadStore) -> dict[str, str]:
    """The public keys the log names (key id → PEM): informative, never trusted by themselves."""
    return {
        q.subject.value[len(NS + "key:") :]: _text(q.object)
        for q in store.quads_for_pattern(None, PEM, None, GRAPH)
        if isinstance(q.subject, ox.NamedNode)
    }


def exported(position: int, s: Signed) -> dict[str, object]:
    """One entry as ``log.json`` holds it."""
    return {
        "position": position,
        "record": s.model_dump(mode="json", exclude={"tombstone"}),
        "tombstone": s.tombstone.model_dump(mode="json") if s.tombstone else None,
    }


def export(store: QuadStore) -> dict[str, object]:
    """The log as an audit bundle's ``log.json`` holds it: each chain's entries as stored
    (position, record, tombstone) and its checkpoint."""
    chains = {
        chain: [exported(position, s) for position, s in sorted(stored, key=lambda x: x[0])]
        for chain, stored in entries(store).items()
    }
    return {
        "chains": chains,
        "heads": {c: h.model_dump(mode="json") for c, h in heads(store).items()},
    }


def bury(store: QuadStore, node: ox.NamedNode, stone: Tombstone) -> None:
    """Attach a tombstone to an entry (replacing none: an entry is erased once)."""
    store.extend([ox.Quad(node, TOMBSTONE, ox.Literal(stone.model_dump_json()), GRAPH)])
