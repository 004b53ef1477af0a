"""Each LLM request as the user's configuration says: ``prompted`` asks the configuration
service for the user's template of the request's prompt (the default when they set none),
fills it, and says which prompt (id and digest) it was, for the trace.

The configuration is read at every request, so a change takes effect at the next answer
(what was read is kept until the service says it changed: ``trustgraph_flow.config.cache``).
Where no configuration service answers (a stack started without one), the request goes
as the processor built it, with the default prompt's id and digest, and the service is not
asked again for ``ABSENT_S``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import weakref
from dataclasses import dataclass
from typing import Any

from trustgraph_base.errors import RequestTimeout, ServiceError
from trustgraph_base.messaging import CONFIG, Context
from trustgraph_base.provenance.prompts import prompt_rows
from trustgraph_base.rdf.rows import Row, triples_of
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import ConfigKey, ConfigRequest, ConfigResponse, TextCompletionRequest
from trustgraph_flow.config.cache import ConfigCache
from trustgraph_flow.prompts.catalogue import (
    PROMPTS,
    SYSTEM_KEY,
    TEMPLATE_PREFIX,
    PromptSpec,
    prompt_id,
)
from trustgraph_flow.prompts.templates import check, digest, render

log = logging.getLogger(__name__)

CONFIG_WAIT_S = 2.0  # a running configuration service answers in milliseconds
ABSENT_S = 30.0
_absent: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class PromptUse:
    """The prompt one LLM step was made from: its id, its version (``sha256:`` of its
    system text and template) and those texts."""

    id: str
    digest: str
    system: str
    template: str

    def rows(self, stage_uri: str, graph: str, sent: set[str] | None = None) -> list[Row]:
        """``stage_uri`` was made from this prompt (``tg:prompt``), and the prompt itself
        unless ``sent`` (the prompt nodes its trace has, added to) has it (``prompt_rows``)."""
        return prompt_rows(
            stage_uri, graph, self.id, self.digest, self.system, self.template, sent=sent
        )

    def triples(self, stage_uri: str, graph: str, sent: set[str] | None = None) -> list[Triple]:
        """``rows`` as models, for a caller that reads them."""
        return triples_of(self.rows(stage_uri, graph, sent))


async def ask_config(ctx: Context[Any], request: ConfigRequest) -> ConfigResponse | None:
    """The configuration service's answer (None: none answered; not asked again for a
    while); a read answered before and kept until the configuration changes (``cache``)."""
    client = ctx.client(CONFIG)
    if _absent.get(client, 0.0) > time.monotonic():
        return None
    cache = ConfigCache.of(ctx, CONFIG)
    kept = cache.get(request)
    if kept is not None:
        return kept
    on_its_way = cache.joined(request)
    if on_its_way is not None:
        await asyncio.wait([on_its_way])
        if not on_its_way.cancelled():
            return on_its_way.result()
        if _absent.get(client, 0.0) > time.monotonic():
            return None  # it found no service
    heard, listening = cache.heard, cache.listening
    sharing = cache.asked(request)
    try:
        answer = await client.request(request, timeout=CONFIG_WAIT_S)
        cache.keep(request, answer, heard=heard, listening=listening)
        if sharing is not None:
            sharing.set_result(answer)
        return answer
    except RequestTimeout as exc:
        log.warning("no configuration (%s): the defaults for %gs", exc, ABSENT_S)
        _absent[client] = time.monotonic() + ABSENT_S
    except ServiceError as exc:  # this request only (the service is there)
        log.warning("configuration refused (%s): the defaults for this request", exc)
    finally:
        if sharing is not None and not sharing.done():
            sharing.cancel()  # no answer: a read that joined it asks for itself
    return None


async def _configured(ctx: Context[Any], user: str, pid: str) -> tuple[str, dict[str, Any]] | None:
    """The user's system prompt and template value of ``pid`` (None: no service answered)."""
    keys = [
        ConfigKey(type="prompt", key=SYSTEM_KEY),
        ConfigKey(type="prompt", key=TEMPLATE_PREFIX + pid),
    ]
    reply = await ask_config(ctx, ConfigRequest(operation="get", keys=keys, user=user))
    if reply is None:
        return None
    system_raw, template_raw = (v.value for v in reply.values)
    return parsed(system_raw, template_raw)


def parsed(system_raw: str, template_raw: str) -> tuple[str, dict[str, Any]] | None:
    """The configured system prompt and template value, from their stored JSON texts (None:
    not JSON)."""
    try:
        system = json.loads(system_raw) if system_raw else ""
        value = json.loads(template_raw) if template_raw else {}
    except ValueError:
        return None
    return (system if isinstance(system, str) else ""), (value if isinstance(value, dict) else {})


def texts(spec: PromptSpec, preamble: str, value: dict[str, Any]) -> tuple[str, str]:
    """The system text and template of ``spec`` as a user configured it (``preamble``: their
    system prompt, put before the prompt's own; ``value``: their template value)."""
    template = value.get("prompt", spec.template)
    own = value.get("system", spec.system)
    if not isinstance(own, str):
        own = spec.system
    if not isinstance(template, str) or check(template, spec.variables) is not None:
        template = spec.template  # put before the check existed, or by hand: never a hole
    return (f"{preamble}\n\n{own}" if preamble else own), template


async def prompted(
    ctx: Context[Any], user: str, request: TextCompletionRequest
) -> tuple[TextCompletionRequest, PromptUse | None]:
    """``request`` with the user's prompt in place, and which prompt that is (None: the
    request is not one of the catalogue's, and goes as it is)."""
    pid = prompt_id(request)
    if pid is None:
        return request, None
    spec = PROMPTS[pid]
    found = await _configured(ctx, user, pid)
    preamble, value = found if found is not None else ("", {})
    system, template = texts(spec, preamble, value)
    use = PromptUse(pid, digest(system, template), system, template)
    if found is None or (system, template) == (spec.system, spec.template):
        return request, use  # the processor built this very prompt
    filled = render(template, spec.fill(request))
    return request.model_copy(update={"system": system, "prompt": filled}), use
