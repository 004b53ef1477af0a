"""The API key store on its own: hashed at rest, exact match only, expiry and revocation."""

from __future__ import annotations

import json
import stat
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from trustgraph_flow.gateway.auth import ADMIN, OPEN, Auth
from trustgraph_flow.gateway.keys import KeyRequestError, KeyStore


def test_a_key_is_its_record_and_nothing_else_is(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path / "gateway" / "api-keys.json")
    record, token = keys.create("alice", "laptop", collections=["work"])
    assert keys.verify(token) == record and record.collections == ("work",)
    prefix, secret = token.rsplit("_", 1)[0], token.split("_", 2)[2]
    for wrong in (
        token + "x",
        token[:-1],
        f"{prefix}_{'A' * len(secret)}",
        "",
        "tg_",
        "tg__x",
        "not-a-key",
        token.replace("tg_", "TG_", 1),
    ):
        assert keys.verify(wrong) is None, wrong
    text = keys.path.read_text()
    assert token not in text and secret not in text
    assert json.loads(text)["keys"][0]["digest"] == record.digest
    assert stat.S_IMODE(keys.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(keys.path.parent.stat().st_mode) == 0o700


def test_expired_and_revoked_keys_stop_working(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path / "k.json")
    soon = (datetime.now(UTC) + timedelta(seconds=0.2)).isoformat()
    short, old = keys.create("bob", "ci", expires=soon)
    live, token = keys.create("bob", "laptop", expires="2999-01-01T00:00:00+01:00")
    assert keys.verify(old) == short
    time.sleep(0.25)  # short's expiry passes
    assert keys.verify(old) is None and keys.verify(token) == live
    assert keys.refusal(old) == f"this API key (tg_{short.id}) expired at {soon}"
    assert keys.refusal(token) is None and keys.refusal(old[:-1]) is None
    other = KeyStore(keys.path)  # a second gateway process sharing the file
    assert other.verify(token) == live
    assert keys.revoke(live.id) and not keys.revoke(live.id)
    assert other.verify(token) is None  # re-read once the file changed
    said = other.refusal(token)
    assert said is not None and said.startswith(f"this API key (tg_{live.id}) was revoked at ")
    assert other.refusal(token[:-1] + "?") is None and keys.list() == [short]
    with pytest.raises(KeyRequestError, match="ISO-8601"):
        keys.create("bob", "x", expires="next tuesday")
    with pytest.raises(KeyRequestError, match="'2020-01-01T00:00:00Z' is in the past"):
        keys.create("bob", "x", expires="2020-01-01T00:00:00Z")
    with pytest.raises(KeyRequestError, match="user id"):
        keys.create("", "x")


def test_who_a_token_is(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path / "k.json")
    _, token = keys.create("alice", "laptop")
    assert Auth(None, keys).principal(None) is OPEN  # auth off: one user domain
    on = Auth("admin-secret", keys)
    assert on.principal("admin-secret") is ADMIN and on.principal(None) is None
    alice = on.principal(token)
    assert alice is not None and alice.user == "alice" and not alice.admin
    assert on.principal("admin-secreT") is None
