"""What tg-start says and checks before it starts anything: output that survives a closed
terminal, where answers will come from, which processors exist, a signing key others may read."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from pathlib import Path

import click


def say(message: str) -> None:
    # After SIGHUP the terminal may be gone: stopping must go on without it.
    with contextlib.suppress(OSError):
        click.echo(message)
        sys.stdout.flush()


def llm_line() -> str:
    """Where answers will come from, as the text-completion processor will read its settings."""
    from pydantic import ValidationError

    from trustgraph_flow.llm.processor import Settings

    try:
        llm = Settings()
    except ValidationError as exc:
        return f"warning: the LLM settings are invalid ({exc.error_count()} errors); see logs"
    if llm.llm_base_url:
        return f"answers come from the LLM at {llm.llm_base_url} (model {llm.llm_model})"
    return (
        "answers come from the offline engine (no LLM configured): to use a real LLM, "
        "set TG_LLM_BASE_URL and TG_LLM_MODEL (e.g. TG_LLM_BASE_URL=http://localhost:11434/v1 "
        "TG_LLM_MODEL=llama3.2 for Ollama) before tg-start; README: Using a real LLM"
    )


def stack_lines() -> list[str]:
    """What the environment makes of the stack beyond the defaults, said at start as the LLM
    is: a user who set TG_OTLP_ENDPOINT or TG_STORE_URI saw nothing saying it was taken (the
    exporter runs when the first is set: ``registry.OPTIONAL``; the store reads the second)."""
    said = []
    if endpoint := os.environ.get("TG_OTLP_ENDPOINT"):
        said.append(f"every trace is also sent as OTLP spans to {endpoint} (docs/otel.md)")
    if servers := os.environ.get("TG_STORE_URI"):
        said.append(
            f"the store keeps the collections on the SPARQL servers {servers} (docs/store.md)"
        )
    return said


def importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


def key_problem(data: Path) -> str | None:
    """Why the store would refuse its signing key (a file others may read, or not a key), as
    the store reads its settings: tg-start says so and starts nothing, rather than restarting
    a store that exits at once, for ever, with the reason only in its log."""
    from pydantic import ValidationError

    from trustgraph_base.integrity.keys import KeyFileError, read_private
    from trustgraph_flow.store.service.settings import StoreSettings

    try:
        store = StoreSettings(data_dir=str(data))
    except ValidationError:
        return None  # the store says what is wrong with its settings itself
    key = Path(store.signing_key) if store.signing_key else data / "signing" / "key.pem"
    if not store.signing or not key.exists():
        return None
    try:
        read_private(key)
    except KeyFileError as exc:
        return str(exc)
    return None
