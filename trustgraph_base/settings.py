"""Settings shared by every processor: flag > environment (``TG_*``) > default."""

from __future__ import annotations

from typing import TypeVar

from pydantic_settings import BaseSettings, SettingsConfigDict

S = TypeVar("S", bound="ProcessorSettings")


class ProcessorSettings(BaseSettings):
    """Each default is written once, here or in a processor's subclass."""

    model_config = SettingsConfigDict(
        env_prefix="TG_",
        extra="ignore",
        cli_kebab_case=True,
        cli_implicit_flags=True,
    )

    pulsar_url: str = "pulsar://127.0.0.1:6650"
    topic_prefix: str = "tg"
    instance: str = ""
    data_dir: str = "./tg-data"
    ready_file: str = ""
    log_level: str = "INFO"
    request_timeout: float = 120.0
    drain_timeout: float = 10.0


def load_settings(cls: type[S], argv: list[str] | None, prog: str) -> S:
    """Build settings from command-line flags (kebab-case) over ``TG_*`` environment variables."""
    return cls(_cli_parse_args=argv if argv is not None else True, _cli_prog_name=prog)
