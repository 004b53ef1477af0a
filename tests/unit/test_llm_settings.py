"""Text-completion settings: flag > TG_* > OPENAI_* > default."""

from __future__ import annotations

import pytest

from trustgraph_base.settings import load_settings
from trustgraph_flow.llm.processor import Settings, estimate_tokens


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "TG_LLM_BASE_URL",
        "OPENAI_BASE_URL",
        "TG_LLM_MODEL",
        "OPENAI_MODEL",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)


def test_defaults_mean_offline() -> None:
    s = load_settings(Settings, [], "text-completion")
    assert (s.llm_base_url, s.llm_model, s.llm_retries) == ("", "gpt-4o-mini", 3)


def test_openai_variables_are_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai/v1")
    monkeypatch.setenv("OPENAI_MODEL", "gpt-x")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-1")
    s = load_settings(Settings, [], "text-completion")
    assert (s.llm_base_url, s.llm_model, s.llm_api_key) == ("http://openai/v1", "gpt-x", "sk-1")
    assert "sk-1" not in repr(s)


def test_tg_variable_beats_openai_and_flag_beats_both(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://openai/v1")
    monkeypatch.setenv("TG_LLM_BASE_URL", "http://tg/v1")
    assert load_settings(Settings, [], "t").llm_base_url == "http://tg/v1"
    assert (
        load_settings(Settings, ["--llm-base-url", "http://flag/v1"], "t").llm_base_url
        == "http://flag/v1"
    )


def test_token_estimate_counts_words() -> None:
    assert estimate_tokens("  one two\nthree ") == 3 and estimate_tokens("") == 0
