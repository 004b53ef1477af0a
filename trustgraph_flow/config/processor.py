"""The configuration service (the reference's ``config``), the flow service (``flow``) and
the prompt service (``prompt``: a configured prompt filled and sent to the LLM).

Configuration is per user (``ConfigRequest.user``; the gateway sets it from the caller's
key), kept in ``<data-dir>/config/config.sqlite`` (``store.py``); ``values.py`` says what it
holds by default and refuses a value a processor could not use (a template with unknown or
missing variables, a tool naming a service we do not have) before anything is changed.
The processors read prompts and tools from it at each request (``trustgraph_flow.prompts``),
so a change takes effect at the next answer: they keep what they read until the service says
``ConfigChanged`` on ``config-changed``, after each put or delete, before answering it, and
when it starts (``trustgraph_flow.config.cache``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from trustgraph_base.errors import BrokerUnavailable, ErrorType, ServiceError
from trustgraph_base.messaging import (
    CONFIG,
    CONFIG_CHANGED,
    FLOW,
    PROMPT,
    Context,
    Processor,
    Topics,
)
from trustgraph_base.schema import (
    ConfigChanged,
    ConfigRequest,
    ConfigResponse,
    ConfigValue,
    FlowRequest,
    FlowResponse,
    PromptRequest,
    TextCompletionResponse,
)
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.config import flows, prompting
from trustgraph_flow.config.store import ConfigStore
from trustgraph_flow.config.values import check_value

log = logging.getLogger(__name__)

KEYS_MAX = 10_000  # keys one user may hold (each value is at most CONFIG_VALUE_MAX)

__all__ = ["Settings", "main", "proc"]


class Settings(ProcessorSettings):
    pass


@dataclass
class State:
    store: ConfigStore


Ctx = Context[Settings, State]
proc: Processor[Settings, State] = Processor("config", Settings)


@proc.lifespan
async def open_store(ctx: Context[Settings]) -> AsyncIterator[State]:
    store = ConfigStore(Path(ctx.settings.data_dir) / "config")
    try:
        # A change made just before a stop may have gone unannounced: readers forget all.
        try:
            await ctx.publish(CONFIG_CHANGED, ConfigChanged())
        except BrokerUnavailable as exc:
            log.warning("could not say the configuration may have changed: %s", exc)
        yield State(store)
    finally:
        store.close()


def run(store: ConfigStore, req: ConfigRequest) -> ConfigResponse:
    """One configuration operation for ``req.user`` (in a worker thread: SQLite blocks)."""
    user, op = req.user, req.operation
    if op in ("list", "getvalues"):
        if not req.type:
            raise ServiceError(ErrorType.BAD_REQUEST, f"config {op} needs a 'type'")
        view = store.view(user, req.type)
        if op == "list":
            return ConfigResponse(directory=list(view))
        values = [ConfigValue(type=req.type, key=k, value=v) for k, v in view.items()]
        return ConfigResponse(values=values)
    if op == "get":
        views = {t: store.view(user, t) for t in {k.type for k in req.keys}}
        # A key not set reads as "" (the official tg-set-tool reads one it never uses).
        values = [
            ConfigValue(type=k.type, key=k.key, value=views[k.type].get(k.key, ""))
            for k in req.keys
        ]
        return ConfigResponse(values=values)
    if op == "config":
        return ConfigResponse(config=store.everything(user), version=store.version(user))
    if op == "put":
        if not req.values:
            raise ServiceError(ErrorType.BAD_REQUEST, "config put needs 'values'")
        for v in req.values:  # every value is checked before any is written
            check_value(v.type, v.key, v.value)
        if store.count(user) + len(req.values) > KEYS_MAX:
            raise ServiceError(
                ErrorType.BAD_REQUEST,
                f"config: at most {KEYS_MAX} keys per user; delete some first",
            )
        version = store.put(user, [(v.type, v.key, v.value) for v in req.values])
        log.info("user %r put %d config values (version %d)", user, len(req.values), version)
        return ConfigResponse(version=version)
    if not req.keys:
        raise ServiceError(ErrorType.BAD_REQUEST, "config delete needs 'keys'")
    for k in req.keys:
        if k.key not in store.view(user, k.type):
            raise ServiceError(ErrorType.NOT_FOUND, f"config {k.type}/{k.key}: not set")
    version = store.delete(user, [(k.type, k.key) for k in req.keys])
    return ConfigResponse(version=version)


@proc.service(CONFIG)
async def config(req: ConfigRequest, ctx: Ctx) -> ConfigResponse:
    answer = await asyncio.to_thread(run, ctx.state.store, req)
    if req.operation in ("put", "delete"):  # heard by every reader before the answer goes
        await ctx.publish(CONFIG_CHANGED, ConfigChanged(user=req.user, version=answer.version))
    return answer


@proc.service(FLOW)
async def flow(req: FlowRequest, ctx: Ctx) -> FlowResponse:
    return flows.answer(req, Topics(ctx.settings.topic_prefix))


@proc.service(PROMPT)
async def prompt(req: PromptRequest, ctx: Ctx) -> AsyncIterator[TextCompletionResponse]:
    """The user's prompt ``req.id`` filled with ``req.variables``, answered by the LLM."""
    async for reply in prompting.invoke(ctx.state.store, req, ctx):
        yield reply


def main() -> None:
    proc.main()


if __name__ == "__main__":
    main()
