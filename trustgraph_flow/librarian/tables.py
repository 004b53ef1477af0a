"""The librarian's sqlite tables, and the names every room of its store shares.

Every row is keyed by (user, collection): a lookup in one user's collection never sees
another's documents.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from trustgraph_base.errors import ServiceError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
    title TEXT NOT NULL, mime_type TEXT NOT NULL, time TEXT NOT NULL,
    size INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL, error TEXT,
    pages INTEGER NOT NULL DEFAULT 0, chunks INTEGER NOT NULL DEFAULT 0,
    chunks_done INTEGER NOT NULL DEFAULT 0, edges INTEGER NOT NULL DEFAULT 0,
    chunk_size INTEGER, chunk_overlap INTEGER,
    next_part INTEGER NOT NULL DEFAULT 0, decoded INTEGER NOT NULL DEFAULT 0,
    pages_chunked INTEGER NOT NULL DEFAULT 0, skipped INTEGER NOT NULL DEFAULT 0,
    pages_decoded INTEGER NOT NULL DEFAULT 0,
    comments TEXT NOT NULL DEFAULT '', tags TEXT NOT NULL DEFAULT '[]',
    metadata TEXT NOT NULL DEFAULT '[]', upload_id TEXT,
    PRIMARY KEY (user, collection, id));
CREATE TABLE IF NOT EXISTS texts (
    user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
    document TEXT NOT NULL, text TEXT NOT NULL,
    PRIMARY KEY (user, collection, id));
CREATE TABLE IF NOT EXISTS text_parts (
    user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
    document TEXT NOT NULL, start INTEGER NOT NULL, length INTEGER NOT NULL, text TEXT NOT NULL,
    PRIMARY KEY (user, collection, id, start));
CREATE TABLE IF NOT EXISTS spans (
    user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
    document TEXT NOT NULL, parent TEXT NOT NULL, offset INTEGER NOT NULL, length INTEGER NOT NULL,
    PRIMARY KEY (user, collection, id));
CREATE TABLE IF NOT EXISTS processing (
    user TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL,
    document TEXT NOT NULL, target TEXT NOT NULL, flow TEXT NOT NULL, time INTEGER NOT NULL,
    tags TEXT NOT NULL,
    PRIMARY KEY (user, collection, id));
CREATE TABLE IF NOT EXISTS collections (
    user TEXT NOT NULL, collection TEXT NOT NULL,
    name TEXT NOT NULL, description TEXT NOT NULL, tags TEXT NOT NULL,
    PRIMARY KEY (user, collection));
CREATE TABLE IF NOT EXISTS events (
    user TEXT NOT NULL, collection TEXT NOT NULL, document TEXT NOT NULL,
    stage TEXT NOT NULL, source TEXT NOT NULL,
    PRIMARY KEY (user, collection, document, stage, source));
"""

# Columns added after the first release: (name, definition), added to an older store.
_ADDED = (
    ("pages_decoded", "INTEGER NOT NULL DEFAULT 0"),
    ("comments", "TEXT NOT NULL DEFAULT ''"),
    ("tags", "TEXT NOT NULL DEFAULT '[]'"),
    ("metadata", "TEXT NOT NULL DEFAULT '[]'"),
    ("upload_id", "TEXT"),
    ("total_size", "INTEGER"),
    ("on_complete", "TEXT"),
    ("touched", "REAL"),
    ("unsealed", "INTEGER NOT NULL DEFAULT 0"),  # complete, its provenance not signed yet
    ("chunks_made", "INTEGER NOT NULL DEFAULT 0"),  # a page-less text being chunked
    ("chunks_split", "INTEGER NOT NULL DEFAULT 0"),  # its chunk count, once it is split
    ("held", "TEXT"),  # complete, the store unreachable for it: why (its writes are held)
)
_CHILD_SUFFIX = re.compile(r"/(p|c)\d+$|/layout$")  # a page, chunk or page layout


class StoreError(ServiceError):
    """A request the store refuses, answered with its ``type`` and ``message``."""


@dataclass(frozen=True)
class Scope:
    user: str
    collection: str


def connect(path: Path) -> sqlite3.Connection:
    """The librarian's database at ``path`` (WAL, autocommit), its tables made or brought
    up to date."""
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(_SCHEMA)
    columns = {row[1] for row in db.execute("PRAGMA table_info(documents)")}
    for name, definition in _ADDED:  # a store made before these were kept
        if name not in columns:
            db.execute(f"ALTER TABLE documents ADD COLUMN {name} {definition}")
    return db


def owner_document(uri: str) -> str:
    """The document URI a page or chunk URI belongs to (``{doc}/p{n}/c{m}`` → ``{doc}``)."""
    while _CHILD_SUFFIX.search(uri):
        uri = _CHILD_SUFFIX.sub("", uri)
    return uri


def parent_of(chunk: str) -> str:
    """The page (or document) a chunk URI lies in."""
    return chunk.rsplit("/c", 1)[0]
