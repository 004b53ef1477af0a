"""Provenance you can prove: canonical digests, Ed25519 signatures and the append-only log.

Pure code, shared by the store (which signs) and the commands that verify, offline too
(``tg-verify-audit`` needs no server): ``canonical`` (RDFC-1.0 form and its SHA-256),
``keys`` (the deployment's signing key and the trusted public keys), ``entries`` (log
entries, tombstones, checkpoints and the chain check). docs/audit.md.
"""
