"""Gateway answers as the commands take them: validated into views, failures as one clear line."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import click
from pydantic import BaseModel

from trustgraph_base.bounds import LISTING_WAIT
from trustgraph_base.errors import ErrorType, ServiceError

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import ExplainResponse
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.options import Gateway

# A malformed id is answered "bad-request" by the store: to a user it is just not there.
NOT_FOUND_TYPES = frozenset({ErrorType.NOT_FOUND, ErrorType.BAD_REQUEST})


class NotFound(click.ClickException):
    """The id is unknown or malformed (the message names it and the scope); ``malformed``:
    the store said the id cannot name anything (bad-request), in any collection."""

    def __init__(self, message: str, malformed: bool = False) -> None:
        super().__init__(message)
        self.malformed = malformed


# What a not-found is told as: a line, or one made of the service's error.
Missing = str | Callable[[ServiceError], str]


@contextmanager
def unknown_as(missing: Missing | None) -> Iterator[None]:
    """Inside, the gateway's not-found (or a malformed id's bad-request) is ``NotFound``
    saying ``missing`` (or what ``missing`` makes of the error); other errors pass, as
    every error does when ``missing`` is None."""
    try:
        yield
    except ServiceError as exc:
        if missing is not None and exc.type in NOT_FOUND_TYPES:
            said = missing if isinstance(missing, str) else missing(exc)
            raise NotFound(said, exc.type == ErrorType.BAD_REQUEST) from None
        raise


def in_scope(exc: ServiceError, gw: Gateway) -> str:
    """A service's not-found message with the scope the command used named in it."""
    from trustgraph_cli.render.output import scope_text

    where = scope_text(gw.user, gw.collection)
    return f"{exc.message.removesuffix(' in this collection')} in {where}"


def no_trace(trace_id: str, gw: Gateway) -> str:
    """The line for a trace id the store does not know, with the next step."""
    from trustgraph_cli.render.output import scope_text

    where = scope_text(gw.user, gw.collection)
    return f"no trace {trace_id!r} in {where}. List them with tg-list-explain-traces."


async def explain_once(
    gw: Gateway,
    request: dict[str, Any],
    what: str,
    missing: Missing | None = None,
    blank: Callable[[ExplainResponse], bool] | None = None,
    trace: str | Callable[[GatewayClient], Awaitable[str]] | None = None,
) -> ExplainResponse:
    """``call_explain`` on a connection of its own (a ``blank`` answer: ``must_exist``); a
    not-found about ``trace`` (of two, the one ``trace(client)`` finds missing) says which of
    the user's other collections holds it, as ``tg-show-explain-trace`` does (``elsewhere``)."""
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.render.output import scope_text

    async with GatewayClient(gw) as client:
        try:
            reply = await call_explain(client, request, missing, what)
        except NotFound as exc:
            if trace is None or exc.malformed:
                raise
            named = trace if isinstance(trace, str) else await trace(client)
            probe = {"operation": "get-trace", "id": named, "step_limit": 1}
            if not (hint := await elsewhere(client, gw, probe)):
                raise
            where = scope_text(gw.user, gw.collection)
            raise NotFound(f"no trace {named!r} in {where}.{hint}") from None
        if blank is not None and blank(reply):
            await must_exist(client, gw)
        return reply


async def call_explain(
    client: GatewayClient, request: dict[str, Any], missing: Missing | None, what: str
) -> ExplainResponse:
    """Send ``request`` to the explain service and validate the answer.

    ``missing`` is the error shown when the id is unknown or malformed (None: the service's
    own); ``what`` names the view in the message shown if the gateway's answer does not
    validate.
    """
    from trustgraph_base.schema.explain import ExplainResponse

    with unknown_as(missing):
        data = await client.request("explain", request)
    return validated(ExplainResponse, data, what)


def required(value: T | None, what: str) -> T:
    """A part the answer must carry; one line naming ``what`` when it does not."""
    if value is None:
        raise click.ClickException(f"the gateway sent no {what}.")
    return value


def validated(model: type[M], data: dict[str, Any], what: str) -> M:
    """The gateway's answer as ``model``; one line naming ``what`` if it does not validate."""
    from trustgraph_base.errors import WireError
    from trustgraph_base.wire import from_json

    try:
        return from_json(model, data, tolerant=True)
    except WireError as exc:
        raise click.ClickException(
            f"the gateway sent {what} that does not validate ({exc})."
        ) from None


SEARCHED_COLLECTIONS = 20  # the most other collections a not-found id is looked for in


async def elsewhere(client: GatewayClient, gw: Gateway, probe: dict[str, Any]) -> str:
    """What to add to a not-found line when the id is in the user's other collections (a
    forgotten or mistyped -C): `` It is in collection 'c': pass -C c.``, or "".

    ``probe``, a read-only explain request for the id, is sent (``wait`` 0: no trace on its
    way waited for) in each of the user's other collections the store holds (its
    ``list-collections``), at most ``SEARCHED_COLLECTIONS``, one round trip each; a key
    limited to some collections is refused the others, so only those it may read are named.
    A failing lookup adds nothing: the line stands as it was.
    """
    found: list[str] = []
    try:
        listed = await client.request("explain", {"operation": "list-collections"})
        names = listed.get("collections", [])
        others = [n for n in names if isinstance(n, str) and n != gw.collection]
        for name in others[:SEARCHED_COLLECTIONS]:
            try:
                await client.request("explain", {**probe, "collection": name, "wait": 0})
            except ServiceError:
                continue
            found.append(name)
    except Exception:  # the hint is a courtesy: the not-found line is the answer
        return ""
    if not found:
        return ""
    where = ", ".join(repr(c) for c in found)
    noun = "collection" if len(found) == 1 else "collections"
    return f" It is in {noun} {where}: pass -C {found[0]}."


async def meant_document(client: GatewayClient, gw: Gateway, source: str) -> str:
    """`` Did you mean 'valgrind_manual-1a2b3c4d/p15/c2'?`` when ``source`` names a document
    (or its page or chunk) by its file's name without the hash a default id ends with
    (``load_document.default_id``), with or without its extension (``valgrind_manual.pdf``):
    the collection's documents so named (the librarian's list, waited for LISTING_WAIT at
    most), or "" when none is or the list fails."""
    import asyncio
    import re
    from pathlib import PurePath

    from trustgraph_base.provenance.uris import DOC_PREFIX
    from trustgraph_cli.load_document import id_stem

    doc, sep, rest = source.removeprefix(DOC_PREFIX).partition("/")
    if source.startswith("<") or not doc:
        return ""
    stems = sorted({re.escape(id_stem(doc)), re.escape(id_stem(PurePath(doc).stem))})
    named = re.compile(f"(?:{'|'.join(stems)})-[0-9a-f]{{8}}")
    try:
        listing = client.librarian({"operation": "list-documents"})
        listed = await asyncio.wait_for(listing, LISTING_WAIT)
    except Exception:  # the hint is a courtesy: the not-found line is the answer
        return ""
    ids = [str(d.get("id", "")).removeprefix(DOC_PREFIX) for d in listed.get("documents", [])]
    lead = DOC_PREFIX if source.startswith(DOC_PREFIX) else ""
    meant = [f"{lead}{i}{sep}{rest}" for i in sorted(ids) if named.fullmatch(i)]
    return f" Did you mean {' or '.join(map(repr, meant[:3]))}?" if meant else ""


async def must_exist(client: GatewayClient, gw: Gateway) -> None:
    """Called on an empty answer: refuse it when ``-C`` names no collection of the user (a
    typo read as an empty collection), as ``unknown_collection`` says."""
    if refusal := await unknown_collection(client, gw):
        raise click.ClickException(refusal)


async def unknown_collection(client: GatewayClient, gw: Gateway) -> str | None:
    """The line to refuse a blank answer with when ``-C`` names no collection of the user (a
    typo: a count of 0 or no rows read as if the collection were empty), or None. Not asked
    for ``default``; a listing that fails says nothing (the answer stands). The listing
    waits LISTING_WAIT at most (it needs the librarian); then only the store's list is
    known, and a collection missing from it is told as a note, the answer standing."""
    import asyncio

    from trustgraph_base.schema import DEFAULT_COLLECTION
    from trustgraph_cli.render.output import scope_text

    if gw.collection == DEFAULT_COLLECTION:
        return None
    where = scope_text(gw.user, gw.collection)
    try:
        listing = client.collections({"operation": "list-collections"})
        listed = await asyncio.wait_for(listing, LISTING_WAIT)
    except TimeoutError:
        await store_only_note(client, gw, where)
        return None
    except Exception:  # the check is a courtesy: the answer is the store's
        return None
    names = [str(c.get("collection")) for c in listed.get("collections", [])]
    if gw.collection in names or listed.get("unreachable"):
        return None
    yours = f": the user's are {', '.join(names)}" if names else ""
    return f"no {where}{yours} (tg-list-collections)"


async def store_only_note(client: GatewayClient, gw: Gateway, where: str) -> None:
    """The librarian did not answer: say on stderr whether the store holds the collection
    (documents still loading there would be the librarian's alone to tell)."""
    try:
        stored = await client.request("explain", {"operation": "list-collections"})
    except Exception:
        return
    names = [str(n) for n in stored.get("collections", [])]
    if gw.collection in names or stored.get("unreachable"):
        return
    theirs = f" (it holds {', '.join(names)})" if names else ""
    click.echo(
        f"Note: the store has no {where}{theirs}; the librarian did not answer within "
        f"{LISTING_WAIT:g} s, so a collection with documents only is not known here.",
        err=True,
    )
