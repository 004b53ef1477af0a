"""The one change a relay makes to what the broker sends: a topic lookup's answer names the
relay, not the broker, so the client keeps every connection on its relay.

Pulsar's binary protocol frames each command as ``[total size][command size][BaseCommand
protobuf][payload…]`` (sizes 4-byte big-endian). A lookup answer (``BaseCommand.type`` 24,
``lookupTopicResponse`` field 24) carries the broker's address in its field 1,
``brokerServiceUrl``; pulsar-lite answers with its own listen address, and the client would
open a second connection there, around the relay. Protobuf reads the last occurrence of a
field, so the relay appends field 1 again with its own URL. Every other frame passes as it
came.
"""

from __future__ import annotations

LOOKUP_RESPONSE = 24  # BaseCommand.Type LOOKUP_RESPONSE, and its field number


def _varint(data: bytes | bytearray, pos: int) -> tuple[int, int]:
    """The varint at ``pos`` and the position after it."""
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return _encode_varint(number << 3 | 2) + _encode_varint(len(payload)) + payload


def _rewrite_lookup(command: bytes, url: bytes) -> bytes:
    """The BaseCommand with its lookup answer's broker URL set to ``url``."""
    out = bytearray()
    pos = 0
    while pos < len(command):
        start = pos
        key, pos = _varint(command, pos)
        kind = key & 7
        if kind == 0:
            _, pos = _varint(command, pos)
        elif kind == 2:
            size, body = _varint(command, pos)
            pos = body + size
            if key >> 3 == LOOKUP_RESPONSE:
                out += _field(LOOKUP_RESPONSE, command[body:pos] + _field(1, url))
                continue
        elif kind == 1:
            pos += 8
        elif kind == 5:
            pos += 4
        else:
            raise ValueError(f"unexpected protobuf wire type {kind}")
        out += command[start:pos]
    return bytes(out)


def _is_lookup_answer(buf: bytearray, pos: int) -> bool:
    """Does the frame at ``pos`` hold a lookup answer (its command's first field is the type)?"""
    if buf[pos + 8] != 0x08:  # field 1 (type), varint
        return False
    kind, _ = _varint(buf, pos + 9)
    return kind == LOOKUP_RESPONSE


def rewrite_frames(buf: bytearray, url: bytes) -> tuple[bytes, bytearray]:
    """The complete frames at the start of ``buf`` (lookup answers rewritten to ``url``) and
    what is left of ``buf`` (an incomplete frame, to be completed by the next read)."""
    out: list[bytes | bytearray] = []
    pos = done = 0
    while len(buf) - pos >= 8:
        end = pos + 4 + int.from_bytes(buf[pos : pos + 4], "big")
        if end > len(buf):
            break
        if _is_lookup_answer(buf, pos):
            out.append(buf[done:pos])
            size = int.from_bytes(buf[pos + 4 : pos + 8], "big")
            command = _rewrite_lookup(bytes(buf[pos + 8 : pos + 8 + size]), url)
            rest = buf[pos + 8 + size : end]
            head = (4 + len(command) + len(rest)).to_bytes(4, "big")
            out.append(head + len(command).to_bytes(4, "big") + command + rest)
            done = end
        pos = end
    out.append(buf[done:pos])
    return b"".join(out), buf[pos:]
