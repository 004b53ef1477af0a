"""Hashing embeddings: deterministic vectors from words and character trigrams, numpy only.

Each lower-cased word and each character trigram of each word (padded with spaces) is
hashed with blake2b to a dimension and a sign; the sums are L2-normalised. Texts that
share words or word pieces get a high cosine similarity. Nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

import numpy as np

DEFAULT_DIM = 384
WORD_WEIGHT = 1.0
TRIGRAM_WEIGHT = 0.5

_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@lru_cache(maxsize=65536)
def _slot(feature: str, dim: int) -> tuple[int, float]:
    """The dimension and sign a feature adds to (stable across runs and machines)."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    index = int.from_bytes(digest[:6], "little") % dim
    return index, 1.0 if digest[7] & 1 else -1.0


def _features(text: str) -> list[tuple[str, float]]:
    features: list[tuple[str, float]] = []
    for word in _WORD.findall(text.lower()):
        features.append(("w:" + word, WORD_WEIGHT))
        padded = f" {word} "
        features.extend(("t:" + padded[i : i + 3], TRIGRAM_WEIGHT) for i in range(len(padded) - 2))
    return features


def embed_one(text: str, dim: int = DEFAULT_DIM) -> np.ndarray:
    """The unit-length vector of one text (all zeros for a text without words)."""
    vec = np.zeros(dim, dtype=np.float32)
    for feature, weight in _features(text):
        index, sign = _slot(feature, dim)
        vec[index] += sign * weight
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else vec


def embed(texts: list[str], dim: int = DEFAULT_DIM) -> np.ndarray:
    """One row per text, float32, L2-normalised."""
    if not texts:
        return np.zeros((0, dim), dtype=np.float32)
    return np.stack([embed_one(t, dim) for t in texts])
