"""The relay's one change to the broker's frames: lookup answers name the relay."""

from __future__ import annotations

from trustgraph_flow.launcher.lookups import _encode_varint, _field, _varint, rewrite_frames

RELAY = b"pulsar://127.0.0.1:4000"


def frame(command: bytes, payload: bytes = b"") -> bytes:
    body = len(command).to_bytes(4, "big") + command + payload
    return len(body).to_bytes(4, "big") + body


def lookup_answer(url: bytes, request_id: int) -> bytes:
    answer = _field(1, url) + b"\x18\x01" + b"\x20" + _encode_varint(request_id)  # Connect, id
    return b"\x08\x18" + _field(24, answer)  # type LOOKUP_RESPONSE, lookupTopicResponse


def fields(message: bytes) -> list[tuple[int, bytes | int]]:
    out: list[tuple[int, bytes | int]] = []
    pos = 0
    while pos < len(message):
        key, pos = _varint(message, pos)
        if key & 7 == 0:
            value, pos = _varint(message, pos)
            out.append((key >> 3, value))
        else:
            size, pos = _varint(message, pos)
            out.append((key >> 3, message[pos : pos + size]))
            pos += size
    return out


def test_a_lookup_answer_names_the_relay_and_other_frames_pass_as_they_came() -> None:
    ping = frame(b"\x08\x12")  # type PING
    message = frame(b"\x08\x09\x4a\x02\x08\x01", b"\x0e\x01payload")  # a MESSAGE with payload
    lookup = frame(lookup_answer(b"pulsar://127.0.0.1:6650", 300))
    out, rest = rewrite_frames(bytearray(ping + lookup + message), RELAY)
    assert rest == bytearray()
    assert out.startswith(ping) and out.endswith(message)
    rewritten = out[len(ping) : len(out) - len(message)]
    total = int.from_bytes(rewritten[:4], "big")
    assert total == len(rewritten) - 4
    size = int.from_bytes(rewritten[4:8], "big")
    command = fields(rewritten[8 : 8 + size])
    assert command[0] == (1, 24)
    body = command[1][1]
    assert isinstance(body, bytes)
    answer = dict(fields(body))
    assert answer[1] == RELAY and answer[4] == 300  # the last brokerServiceUrl wins


def test_an_incomplete_frame_waits_for_the_rest() -> None:
    lookup = frame(lookup_answer(b"pulsar://127.0.0.1:6650", 7))
    out, rest = rewrite_frames(bytearray(lookup[:10]), RELAY)
    assert out == b"" and rest == bytearray(lookup[:10])
    out, rest = rewrite_frames(rest + lookup[10:], RELAY)
    assert RELAY in out and rest == bytearray()
