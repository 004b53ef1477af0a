"""Hashing embeddings: deterministic, unit length, and similar texts score higher."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from trustgraph_base.errors import ServiceError
from trustgraph_flow.embeddings import hashing
from trustgraph_flow.embeddings.processor import HashingEmbedder, Settings, open_embedder
from trustgraph_flow.embeddings.sentence import SentenceEmbedder


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


def test_deterministic_and_normalised() -> None:
    texts = ["Paris is the capital of France.", "Marie Curie was born in Warsaw."]
    first, second = hashing.embed(texts), hashing.embed(list(texts))
    assert first.shape == (2, hashing.DEFAULT_DIM) and first.dtype == np.float32
    assert np.array_equal(first, second)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0)
    assert hashing.embed(["x"], dim=64).shape == (1, 64)


def test_stable_across_processes() -> None:
    code = "from trustgraph_flow.embeddings import hashing; print(hashing.embed_one('stable text')[:4].tolist())"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == str(hashing.embed_one("stable text")[:4].tolist())


def test_similar_texts_score_higher() -> None:
    query = hashing.embed_one("What is the capital of France?")
    near = hashing.embed_one("Paris is the capital city of France.")
    far = hashing.embed_one("Marie Curie discovered polonium and radium.")
    assert cos(query, near) > cos(query, far)
    # word pieces count: an inflected form is still close
    plural = hashing.embed_one("capitals")
    assert cos(plural, hashing.embed_one("capital")) > cos(plural, hashing.embed_one("zebra")) + 0.3


def test_text_without_words_is_the_zero_vector() -> None:
    assert not hashing.embed_one("  ?! ").any()
    assert hashing.embed([]).shape == (0, hashing.DEFAULT_DIM)


def test_default_backend_names_its_model() -> None:
    embedder = open_embedder(Settings(embeddings_dim=32))
    assert isinstance(embedder, HashingEmbedder) and embedder.model == "hashing-32"


def test_sentence_transformers_backend_fails_clearly_when_absent() -> None:
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        with pytest.raises(ServiceError) as err:
            SentenceEmbedder.load()
        assert err.value.type == "embeddings-unavailable" and "not installed" in err.value.message
    else:
        pytest.skip("sentence-transformers is installed")
