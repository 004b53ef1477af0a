"""The deployment's Ed25519 signing key and the public keys its signatures verify with.

Layout (the defaults, under the data folder; both paths are settings, so a deployment at
scale mounts a key file and a folder of public keys instead):

    <data_dir>/signing/key.pem          the private key, PKCS#8 PEM, mode 0600
    <data_dir>/signing/public/<id>.pem  every public key this deployment has signed with

A key is named by its id, ``ed25519:`` and the first 32 hex digits of the SHA-256 of its raw
public bytes. Rotation (``rotate``) keeps the old public key in ``public/`` and writes a
new private key, so signatures made before still verify.
"""

from __future__ import annotations

import base64
import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from trustgraph_base.errors import TrustGraphError

_RAW = serialization.Encoding.Raw, serialization.PublicFormat.Raw


class KeyFileError(TrustGraphError):
    """A key file that cannot be used: the message names the file and what to do (a
    processor given one says so in one line and exits 1)."""


def key_id(public: Ed25519PublicKey) -> str:
    """``ed25519:<hex>``: the SHA-256 of the raw public key, first 32 hex digits."""
    return "ed25519:" + hashlib.sha256(public.public_bytes(*_RAW)).hexdigest()[:32]


def public_pem(public: Ed25519PublicKey) -> str:
    pem = public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return pem.decode()


def read_public(text: str, where: str) -> Ed25519PublicKey:
    """An Ed25519 public key from PEM text; ``KeyFileError`` naming ``where`` otherwise."""
    try:
        key = serialization.load_pem_public_key(text.encode())
    except ValueError as exc:
        raise KeyFileError(f"{where} is not a PEM public key ({exc})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"{where} is not an Ed25519 public key")
    return key


@dataclass
class Keyring:
    """The signing key (None where this process only verifies) and the trusted public keys by id."""

    signer: Ed25519PrivateKey | None = None
    kid: str = ""
    public: dict[str, Ed25519PublicKey] = field(default_factory=dict)
    _mine: bytes | None = field(default=None, init=False, repr=False, compare=False)

    def sign(self, message: bytes) -> str:
        """The base64 Ed25519 signature of ``message`` with the current key."""
        assert self.signer is not None, "this keyring has no signing key"
        return base64.b64encode(self.signer.sign(message)).decode()

    def verify(self, kid: str, signature: str, message: bytes) -> str | None:
        """None when ``signature`` is ``kid``'s over ``message``; else why not, in words.

        With the private key of ``kid`` at hand (the store's own signatures), the message is
        signed again and compared first: Ed25519 signs deterministically (RFC 8032), so the
        same bytes are the signature this key makes over it, valid by construction, at a
        third of a verification's CPU (a long trace checks 2,001). Any other bytes are
        verified as before."""
        key = self.public.get(kid)
        if key is None:
            return f"signed with key {kid}, which is not among the trusted keys"
        try:
            raw = base64.b64decode(signature, validate=True)
            if self.signer is not None and self._own(key) and raw == self.signer.sign(message):
                return None
            key.verify(raw, message)
        except (InvalidSignature, ValueError):
            return "the signature does not match"
        return None

    def _own(self, key: Ed25519PublicKey) -> bool:
        """Whether ``key`` is the signing key's public half (its raw bytes, compared once)."""
        if self._mine is None:
            assert self.signer is not None
            self._mine = self.signer.public_key().public_bytes(*_RAW)
        return key.public_bytes(*_RAW) == self._mine


def check_private(path: Path) -> None:
    """Refuse a private key file that others may read or write (anything but the owner's)."""
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise KeyFileError(
            f"signing key {path} has mode {mode:04o}: others may read it. "
            f"Run 'chmod 600 {path}' (and replace the key if it was exposed)."
        )


def write_private(path: Path, key: Ed25519PrivateKey) -> None:
    """Write a private key that only the owner can read (created 0600, never replaced)."""
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(pem)


def make_private(path: Path) -> None:
    """A new key at ``path``, whole or not at all: written aside, then linked into place, so
    two processes starting together (replicas sharing a key) end up with the same one."""
    staged = path.with_name(f"{path.name}.{os.getpid()}.new")
    staged.unlink(missing_ok=True)
    write_private(staged, Ed25519PrivateKey.generate())
    try:
        os.link(staged, path)
    except FileExistsError:
        pass  # another process made it first: that one is the key
    finally:
        staged.unlink()


def read_private(path: Path) -> Ed25519PrivateKey:
    check_private(path)
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError):
        raise KeyFileError(
            f"signing key {path} is not an unencrypted PEM private key: restore it from a "
            "backup, or move it away and a new one is made at the next start (what the old one "
            "signed still verifies: its public key is kept with the trusted ones)"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"signing key {path} is not an Ed25519 key")
    return key


def trusted(folder: Path) -> dict[str, Ed25519PublicKey]:
    """The public keys in ``folder`` (``*.pem``) by id; an absent folder holds none."""
    out: dict[str, Ed25519PublicKey] = {}
    if folder.is_dir():
        for pem in sorted(folder.glob("*.pem")):
            key = read_public(pem.read_text(), str(pem))
            out[key_id(key)] = key
    return out


def publish(folder: Path, public: Ed25519PublicKey) -> None:
    """Keep ``public`` in ``folder`` as ``<id>.pem`` (its id with ``:`` as ``-``)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (key_id(public).replace(":", "-") + ".pem")
    if not target.exists():
        target.write_text(public_pem(public))


def open_keyring(key_file: Path, public_dir: Path, *, create: bool = True) -> Keyring:
    """The signing keyring: the key at ``key_file`` (made, 0600, when absent and ``create``)
    and every public key in ``public_dir``, to which the current one is added."""
    if not key_file.exists():
        if not create:
            raise KeyFileError(f"signing key {key_file} does not exist")
        make_private(key_file)
    signer = read_private(key_file)
    publish(public_dir, signer.public_key())
    keys = trusted(public_dir)
    return Keyring(signer, key_id(signer.public_key()), keys)


def rotate(key_file: Path, public_dir: Path) -> tuple[str, str]:
    """Replace the signing key with a new one, keeping the old public key trusted; (old id, new id)."""
    old = read_private(key_file)
    publish(public_dir, old.public_key())
    new = Ed25519PrivateKey.generate()
    staged = key_file.with_name(key_file.name + ".new")
    staged.unlink(missing_ok=True)
    write_private(staged, new)
    publish(public_dir, new.public_key())
    os.replace(staged, key_file)
    return key_id(old.public_key()), key_id(new.public_key())
