"""The broker's message size limit, checked before a message is sent."""

from __future__ import annotations

from trustgraph_base.errors import MessageTooLarge

# The broker takes 5 MiB per message (pulsar's and pulsar-lite's default maxMessageSize), of
# which the client keeps 10 KiB for the frame: payload and properties must fit the rest
# (measured with pulsar-lite: 5,232,608 payload bytes pass, 5,232,609 do not).
MAX_MESSAGE_BYTES = 5 * 1024 * 1024 - 16 * 1024


def check_size(topic: str, data: bytes, properties: dict[str, str] | None) -> None:
    """Refuse (``MessageTooLarge``) a message the broker would refuse as too big: it would
    fail the same way on every retry."""
    size = len(data) + sum(len(k) + len(v) for k, v in (properties or {}).items())
    if size > MAX_MESSAGE_BYTES:
        raise MessageTooLarge(
            f"a message of {size:,} bytes for {topic} is larger than the broker takes "
            f"({MAX_MESSAGE_BYTES:,} bytes); it must be split or sent by reference"
        )
