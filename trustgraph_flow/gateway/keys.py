"""Per-user API keys: created, listed and revoked by the admin, kept hashed in one private file.

A key is ``tg_<id>_<secret>``: ``id`` (16 hex) names it in lists and revocations, ``secret``
is 32 random bytes (``secrets.token_urlsafe``). Only the SHA-256 of the whole key is kept
(a 256-bit random secret needs no slow hash), and a presented key is checked with
``hmac.compare_digest`` against the stored digest of its id. The file
(``<data_dir>/gateway/api-keys.json`` unless set) is written whole to a 0600 temporary
file and renamed into place under a lock, so several gateway processes can share it;
each re-reads it when its modification time changes. A revoked key stays in the file,
marked ``revoked``, so its holder can be told it was revoked (``refusal``) rather than
left looking for a typo; it is in no list and signs in nowhere.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import threading
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

PREFIX = "tg_"


class KeyRequestError(ValueError):
    """A key request that cannot be carried out (the message says why)."""


@dataclass(frozen=True)
class ApiKey:
    """One key's record: whose it is, what it may reach, and the digest of its secret."""

    id: str
    user: str
    name: str
    created: str
    digest: str
    collections: tuple[str, ...] | None = None  # None: every collection of ``user``
    expires: str | None = None
    revoked: str | None = None  # when it was revoked (it stays on file to say so)

    def public(self) -> dict[str, Any]:
        """What lists show (never the digest), in the TrustGraph IAM field names."""
        return {
            "id": self.id,
            "user_id": self.user,
            "name": self.name,
            "prefix": f"{PREFIX}{self.id}",
            "created": self.created,
            "expires": self.expires or "",
            "collections": list(self.collections) if self.collections is not None else None,
            "last_used": "",
        }

    def expired(self, now: datetime) -> bool:
        return self.expires is not None and parse_time(self.expires) <= now


def now_text() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_time(text: str) -> datetime:
    """An ISO-8601 time; one without an offset is UTC."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise KeyRequestError(
            f"not an ISO-8601 time: {text!r} (e.g. 2027-01-31T00:00:00Z)"
        ) from None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def key_id_of(token: str) -> str | None:
    """The id part of a presented key, or None if it does not look like one of ours."""
    if not token.startswith(PREFIX):
        return None
    parts = token[len(PREFIX) :].split("_", 1)
    return parts[0] if len(parts) == 2 and parts[0] and parts[1] else None


class KeyStore:
    """The key file; thread-safe, and safe to share between processes (lock + rename)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._keys: dict[str, ApiKey] = {}
        self._stamp: tuple[int, ...] | None = None
        self._lock = threading.Lock()

    def verify(self, token: str) -> ApiKey | None:
        """The live key ``token`` is, or None (unknown, wrong secret, revoked or expired)."""
        key = self._held(token)
        if key is None or key.revoked or key.expired(datetime.now(UTC)):
            return None
        return key

    def refusal(self, token: str) -> str | None:
        """What became of the key ``token`` is, when it was revoked or has expired; None for
        any other token. Only the whole key (its secret too) is told: no oracle for ids."""
        key = self._held(token)
        if key is not None and key.revoked:
            return f"this API key ({PREFIX}{key.id}) was revoked at {key.revoked}"
        if key is not None and key.expires and key.expired(datetime.now(UTC)):
            return f"this API key ({PREFIX}{key.id}) expired at {key.expires}"
        return None

    def _held(self, token: str) -> ApiKey | None:
        """The record whose secret ``token`` holds, revoked or not (a constant-time check)."""
        key_id = key_id_of(token)
        if key_id is None:
            return None
        key = self._current().get(key_id)
        expected = key.digest if key is not None else digest("")
        ok = hmac.compare_digest(digest(token), expected)
        return key if ok else None

    def live(self, key_id: str) -> bool:
        """Whether the key ``key_id`` is neither revoked nor expired (open sockets' check)."""
        key = self._current().get(key_id)
        return key is not None and not key.revoked and not key.expired(datetime.now(UTC))

    def create(
        self,
        user: str,
        name: str,
        *,
        collections: list[str] | None = None,
        expires: str | None = None,
    ) -> tuple[ApiKey, str]:
        """A new key for ``user``: its record and the plaintext (shown once, never stored)."""
        if not user or len(user) > 200:
            raise KeyRequestError("a key needs a user id (1 to 200 characters)")
        if collections is not None and (not collections or not all(collections)):
            raise KeyRequestError("collections, when given, must be non-empty names")
        if expires and parse_time(expires) <= datetime.now(UTC):
            raise KeyRequestError(
                f"expires {expires!r} is in the past: a key created so would never work "
                "(give a later time, e.g. 2027-01-31T00:00:00Z)"
            )
        key_id = secrets.token_hex(8)
        token = f"{PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        key = ApiKey(
            id=key_id,
            user=user,
            name=name,
            created=now_text(),
            digest=digest(token),
            collections=tuple(collections) if collections is not None else None,
            expires=expires or None,
        )
        with self._writing() as keys:
            keys[key_id] = key
        return key, token

    def list(self, user: str | None = None) -> list[ApiKey]:
        keys = [k for k in self._current().values() if not k.revoked]
        return sorted((k for k in keys if user is None or k.user == user), key=lambda k: k.created)

    def revoke(self, key_id: str) -> bool:
        """Revoke a key for good; False if there was none with that id (or it was revoked)."""
        with self._writing() as keys:
            key = keys.get(key_id)
            if key is None or key.revoked:
                return False
            keys[key_id] = replace(key, revoked=now_text())
            return True

    def _current(self) -> dict[str, ApiKey]:
        """The keys as on disk (re-read when the file changed)."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return {}
        # The inode too: a rename within one mtime tick, to a file of the same size, is new.
        stamp = (st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size)
        with self._lock:
            if stamp != self._stamp:
                self._keys = self._read()
                self._stamp = stamp
            return self._keys

    def _read(self) -> dict[str, ApiKey]:
        data = json.loads(self.path.read_text())
        keys = {}
        for raw in data.get("keys", []):
            cols = raw.get("collections")
            raw["collections"] = tuple(cols) if cols is not None else None
            keys[raw["id"]] = ApiKey(**raw)
        return keys

    @contextlib.contextmanager
    def _writing(self) -> Iterator[dict[str, ApiKey]]:
        """Lock the file, yield the current keys to change, write them back privately."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock_fd = os.open(self.path.with_suffix(".lock"), os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
            keys = self._read() if self.path.exists() else {}
            yield keys
            records = []
            for key in keys.values():
                rec = asdict(key)
                rec["collections"] = list(key.collections) if key.collections is not None else None
                records.append(rec)
            tmp = self.path.with_suffix(f".tmp{os.getpid()}")
            fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as out:
                json.dump({"version": 1, "keys": records}, out, indent=1)
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, self.path)
            with self._lock:
                self._keys, self._stamp = dict(keys), None
        finally:
            fcntl.flock(lock_fd, fcntl.LOCK_UN)
            os.close(lock_fd)
