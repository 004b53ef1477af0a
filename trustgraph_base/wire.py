"""The one wire codec: pydantic message models ↔ JSON bytes."""

from __future__ import annotations

import json
import re
import weakref
from collections.abc import Sequence
from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from trustgraph_base.errors import WireError
from trustgraph_base.rdf.json_text import triples_json
from trustgraph_base.rdf.rows import triples_of
from trustgraph_base.rdf.terms import KIND_NAMES, iri_fault

M = TypeVar("M", bound=BaseModel)
TOO_DEEP = "nested too deeply"


def encode(model: BaseModel) -> bytes:
    """Serialise a message to its JSON wire form (absent optionals omitted)."""
    if _KEPT:
        kept = _KEPT.get(id(model))
        if kept is not None and kept[0]() is model:
            return kept[1]
    triples = model.__dict__.get("explain_triples")
    if triples:
        return _with_triples(model, triples)
    return model.model_dump_json(by_alias=True, exclude_none=True).encode()


def _with_triples(model: BaseModel, triples: Sequence[Any]) -> bytes:
    """An explain event's wire form: pydantic writes the rest, ``triples_json`` its triples
    (the same bytes in two thirds of the time: most of what an explain event costs to send).
    The fields after them that are given (a RAG response's ``end_of_session``, never None)
    pydantic writes apart, and they follow the triples, in their order."""
    after, excluded = _after_triples(type(model))
    d = model.__dict__
    text = model.model_dump_json(by_alias=True, exclude_none=True, exclude=excluded)
    tail = "}"
    if not all(d[name] is None for name in after):
        tail = "," + model.model_dump_json(by_alias=True, exclude_none=True, include=set(after))[1:]
    try:
        body = triples_json(triples)
        return f'{text[:-1]}{"," if len(text) > 2 else ""}"explain_triples":{body}{tail}'.encode()
    except UnicodeEncodeError:  # a lone surrogate: whatever pydantic does with it
        return _pydantics(model, triples)


def _pydantics(model: BaseModel, triples: Sequence[Any]) -> bytes:
    """The message as pydantic writes it, its triples as models (an event made of rows,
    ``rdf.rows``, has them as models first)."""
    if any(type(t) is tuple for t in triples):
        model = model.model_copy(update={"explain_triples": triples_of(triples)})
    return model.model_dump_json(by_alias=True, exclude_none=True).encode()


@cache
def _after_triples(cls: type[BaseModel]) -> tuple[tuple[str, ...], set[str]]:
    """``cls``'s fields after ``explain_triples`` in order; with it, what ``_with_triples`` leaves out."""
    names = list(cls.model_fields)
    after = tuple(names[names.index("explain_triples") + 1 :])
    return after, {"explain_triples", *after}  # never changed: a cached set


# id of a live message → (a weak reference to it, its wire form): ``keep_encoding``. The
# reference says the id is still that message's (an id is reused once its object is freed).
_KEPT: dict[int, tuple[weakref.ref[BaseModel], bytes]] = {}


def keep_encoding(model: M, data: bytes) -> M:
    """``model``, with ``data`` (its wire form: ``encode``'s, or the bytes it was decoded
    from) remembered while it lives, so that ``encode`` returns them instead of serialising
    it again. A message is frozen, so its form cannot change. For large messages that are
    encoded twice: a 4 MB trace piece the store encodes to check its size, then to send it;
    a reply the gateway decodes, then writes to its socket."""
    key = id(model)

    def forget(ref: weakref.ref[BaseModel]) -> None:  # the message is freed
        if (kept := _KEPT.get(key)) is not None and kept[0] is ref:
            del _KEPT[key]

    _KEPT[key] = (weakref.ref(model, forget), data)
    return model


def encode_pack(models: Sequence[BaseModel]) -> bytes:
    """Several messages as one payload: the JSON array of their wire forms (``decode_pack``)."""
    return b"[" + b",".join(encode(m) for m in models) + b"]"


@cache
def _pack_of(cls: type[M]) -> TypeAdapter[list[M]]:
    return TypeAdapter(list[cls])  # type: ignore[valid-type]


def decode_pack(cls: type[M], data: bytes | str) -> list[M]:
    """The messages of an ``encode_pack`` payload, parsed and validated in one pass;
    ``WireError`` naming the first bad field (its path starts with the item's index)."""
    try:
        return _pack_of(cls).validate_json(data)
    except ValidationError as exc:
        if exc.errors(include_url=False)[0]["type"] == "json_invalid":
            raise WireError(f"malformed JSON: {json_fault(data)}") from None
        raise WireError(describe(exc)) from None


_ITEMS = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def _after_space(text: str, pos: int) -> int:
    found = _SPACE.match(text, pos)
    return found.end() if found else pos


def split_pack(data: bytes) -> list[tuple[Any, bytes]]:
    """The items of an ``encode_pack`` payload as JSON values, each with its own bytes, for
    a caller that only passes them on (``requests.forwarded``): parsed by ``json``'s C
    scanner, not validated into models (a 31-triple agent pack: 27 µs, not 127 µs to
    validate and encode again). ``WireError`` if it is not a JSON array."""
    items: list[tuple[Any, bytes]] = []
    try:
        text = data.decode()
        pos = _after_space(text, 0)
        if text[pos : pos + 1] != "[":
            raise WireError("malformed JSON: a pack must be a JSON array")
        pos = _after_space(text, pos + 1)
        more = text[pos : pos + 1] != "]"
        pos += 0 if more else 1
        while more:
            value, end = _ITEMS.raw_decode(text, pos)
            items.append((value, text[pos:end].encode()))
            pos = _after_space(text, end)
            more = text[pos : pos + 1] == ","
            if not more and text[pos : pos + 1] != "]":
                raise WireError(f"malformed JSON: ',' or ']' expected at character {pos}")
            pos = _after_space(text, pos + 1) if more else pos + 1
    except WireError:
        raise
    except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError is a ValueError
        raise WireError(f"malformed JSON: {exc}") from None
    except RecursionError:
        raise WireError(f"malformed JSON: {TOO_DEEP}") from None
    if text[pos:].strip(" \t\n\r"):
        raise WireError(f"malformed JSON: extra data at character {pos}")
    return items


def to_json(model: BaseModel) -> Any:
    """The JSON-compatible value of a message, as ``encode`` would write it (parsed from
    the bytes it keeps, ``keep_encoding``: all a forwarded reply has)."""
    if _KEPT:
        kept = _KEPT.get(id(model))
        if kept is not None and kept[0]() is model:
            return json.loads(kept[1])
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def decode(cls: type[M], data: bytes | str, *, tolerant: bool = False) -> M:
    """Parse JSON bytes into ``cls``; raise ``WireError`` naming the first bad field.

    ``tolerant`` drops unknown top-level fields instead of refusing them (the gateway's
    edge, so that newer clients still work). Otherwise the bytes are parsed and validated
    in one pass in Rust (``model_validate_json``), the hot path of every consumer.
    """
    if not tolerant:
        try:
            return cls.model_validate_json(data)
        except ValidationError as exc:
            if exc.errors(include_url=False)[0]["type"] == "json_invalid":
                raise WireError(f"malformed JSON: {json_fault(data)}") from None
            raise WireError(describe(exc)) from None
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise WireError(f"malformed JSON: {exc}") from None
    except RecursionError:
        raise WireError(f"malformed JSON: {TOO_DEEP}") from None
    return from_json(cls, value, tolerant=tolerant)


def from_json(cls: type[M], value: Any, *, tolerant: bool = False) -> M:
    """Validate an already-parsed JSON value into ``cls`` (see ``decode``)."""
    if tolerant and isinstance(value, dict):
        known = set()
        for name, field in cls.model_fields.items():
            known.add(name)
            if field.alias:
                known.add(field.alias)
        value = {k: v for k, v in value.items() if k in known}
    try:
        return cls.model_validate(value)
    except ValidationError as exc:
        raise WireError(describe(exc)) from None
    except RecursionError:
        raise WireError(f"(message): {TOO_DEEP}") from None


def json_fault(data: bytes | str) -> str:
    """What ``json`` says is wrong with ``data`` (the same words as before the Rust parser)."""
    try:
        json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        return str(exc)
    except RecursionError:
        return TOO_DEEP
    return "invalid JSON"


def describe(exc: ValidationError) -> str:
    """A one-line summary of a validation error: the field path and what is wrong.

    An IRI refused by the Rust-side pattern is described with ``check_iri``'s reason
    (forbidden character, no scheme), as when the check ran in Python.
    """
    errors = exc.errors(include_url=False)
    first = errors[0]
    wrong_kind = kind_fault(first, errors)
    if wrong_kind is not None:  # the rest are its consequences (fields of the other kind)
        return wrong_kind
    path = ".".join(str(part) for part in first["loc"]) or "(message)"
    more = exc.error_count() - 1
    tail = f" (and {more} more)" if more else ""
    fault = iri_fault(first)
    msg = f"Value error, {fault}" if fault is not None else first["msg"]
    return f"{path}: {msg}{tail}"


def kind_fault(error: Any, errors: Sequence[Any]) -> str | None:
    """``s: 'x' is a literal; expected an IRI or a blank node`` when ``error`` is a term of a
    kind its place does not take (a subject or predicate given as a literal, say); else None."""
    ctx, loc, given = error.get("ctx") or {}, tuple(error["loc"]), error.get("input")
    if error["type"] == "union_tag_invalid" and ctx.get("discriminator") == "'t'":
        tag, expected = ctx.get("tag"), ctx.get("expected_tags", "")
    elif error["type"] == "literal_error" and loc[-1:] == ("t",) and isinstance(given, str):
        tag, expected, loc = given, ctx.get("expected", ""), loc[:-1]
        given = {e["loc"][-1]: e.get("input") for e in errors if tuple(e["loc"][:-1]) == loc}
    else:
        return None
    kinds = [KIND_NAMES[k] for k in re.findall(r"'(\w)'", expected) if k in KIND_NAMES]
    if tag not in KIND_NAMES or not kinds:
        return None
    values = [given.get(k) for k in "vid"] if isinstance(given, dict) else []
    named = next((f"{v!r} is " for v in values if isinstance(v, str)), "")
    path = ".".join(str(part) for part in loc) or "(message)"
    return f"{path}: {named}{KIND_NAMES[tag]}; expected {' or '.join(kinds)}"
