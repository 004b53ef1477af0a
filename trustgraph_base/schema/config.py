"""The configuration service (the reference's ``config``) and the flow service (``flow``).

Configuration is a map ``type → key → value`` (values are strings, usually JSON) per user:
``get`` / ``put`` / ``delete`` take ``keys`` or ``values``, ``list`` and ``getvalues`` one
``type``, ``config`` answers the whole map with its ``version``. Types ``prompt`` and
``tool`` hold what the processors use (docs/config.md); any other type is kept as given.

The flow service describes the one pipeline: a ``default`` flow of blueprint ``default``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from trustgraph_base.bounds import NAME_MAX
from trustgraph_base.schema.core import Message, Response, Scoped

CONFIG_VALUE_MAX = 64 * 1024  # characters in one value (a prompt template, a tool)
CONFIG_NAME_MAX = 200  # characters in a type or a key
CONFIG_ITEMS_MAX = 1000  # keys or values in one request

ConfigOperation = Literal["get", "put", "delete", "list", "getvalues", "config"]
FlowOperation = Literal[
    "list-flows",
    "get-flow",
    "list-blueprints",
    "get-blueprint",
    "start-flow",
    "stop-flow",
    "put-blueprint",
    "delete-blueprint",
]


class ConfigKey(Message):
    type: str = Field(min_length=1, max_length=CONFIG_NAME_MAX)
    key: str = Field(min_length=1, max_length=CONFIG_NAME_MAX)


class ConfigValue(Message):
    type: str = Field(min_length=1, max_length=CONFIG_NAME_MAX)
    key: str = Field(min_length=1, max_length=CONFIG_NAME_MAX)
    value: str = Field(max_length=CONFIG_VALUE_MAX)


class ConfigRequest(Scoped):
    """One configuration operation, acting on ``user``'s configuration (``collection`` is
    not used: configuration belongs to the user)."""

    operation: ConfigOperation
    keys: list[ConfigKey] = Field(default=[], max_length=CONFIG_ITEMS_MAX)
    values: list[ConfigValue] = Field(default=[], max_length=CONFIG_ITEMS_MAX)
    type: str = Field(default="", max_length=CONFIG_NAME_MAX)


class ConfigResponse(Response):
    values: list[ConfigValue] = []
    directory: list[str] = []
    config: dict[str, dict[str, str]] | None = None
    version: int = 0


class ConfigChanged(Message):
    """Said on ``config-changed`` by the configuration service once it has changed ``user``'s
    configuration (a put or a delete), before it answers the change; ``user`` None: anyone's
    may have changed (said when the service starts). Processors keep the answers they read
    until it comes (``trustgraph_flow.config.cache``)."""

    user: str | None = Field(default=None, min_length=1, max_length=NAME_MAX)
    version: int = 0


class PromptRequest(Scoped):
    """The reference's ``prompt`` service: the user's prompt ``id`` filled with ``variables``
    and sent to the LLM (answered as text completions, streamed or not)."""

    id: str = Field(min_length=1, max_length=CONFIG_NAME_MAX)
    variables: dict[str, str] = Field(default={}, max_length=CONFIG_ITEMS_MAX)
    streaming: bool = False


class FlowRequest(Scoped):
    operation: FlowOperation
    flow_id: str = Field(default="", alias="flow-id", max_length=CONFIG_NAME_MAX)
    blueprint_name: str = Field(default="", alias="blueprint-name", max_length=CONFIG_NAME_MAX)
    description: str = Field(default="", max_length=CONFIG_VALUE_MAX)


class FlowResponse(Response):
    flow_ids: list[str] | None = Field(default=None, alias="flow-ids")
    blueprint_names: list[str] | None = Field(default=None, alias="blueprint-names")
    flow: str | None = None  # the flow's JSON
    blueprint_definition: str | None = Field(default=None, alias="blueprint-definition")
