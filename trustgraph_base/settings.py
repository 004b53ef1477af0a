"""Settings shared by every processor: flag > environment (``TG_*``) > default.

Each field's docstring is its ``--help`` text; the data directory defaults to where
``tg-start`` keeps its processors' data, so a processor started by hand finds the same.
"""

from __future__ import annotations

import argparse
import inspect
from typing import TypeVar

from pydantic import Field
from pydantic_settings import BaseSettings, CliSettingsSource, SettingsConfigDict

from trustgraph_base.paths import default_processor_data_dir

S = TypeVar("S", bound="ProcessorSettings")

HELP_EPILOG = """\
Every flag can also be set in the environment as TG_<NAME> (--data-dir is TG_DATA_DIR);
a flag wins over the environment, the environment over the default."""


class ProcessorSettings(BaseSettings):
    """Each default is written once, here or in a processor's subclass."""

    model_config = SettingsConfigDict(
        env_prefix="TG_",
        extra="ignore",
        cli_kebab_case=True,
        cli_implicit_flags=True,
        use_attribute_docstrings=True,
    )

    pulsar_url: str = "pulsar://127.0.0.1:6650"
    """The Pulsar broker to use."""
    pulsar_token: str = ""
    """A token for a broker that requires one (pulsar token auth), or file:PATH to read it from."""
    topic_prefix: str = "tg"
    """Prefix of every topic name, so several stacks can share one broker."""
    instance: str = ""
    """Name of this instance when several run side by side (in logs and subscriptions)."""
    data_dir: str = default_processor_data_dir()
    """Where the processor keeps its data (default: the data dir tg-start uses)."""
    ready_file: str = ""
    """A file to write once the processor is ready (tg-start waits for it)."""
    log_level: str = "INFO"
    """DEBUG, INFO, WARNING or ERROR."""
    request_timeout: float = 120.0
    """Seconds to wait for another service's reply."""
    drain_timeout: float = 10.0
    """Seconds to finish in-flight work on shutdown."""
    service_concurrency: int = Field(default=64, ge=1, le=10_000)
    """Requests each service of this process works on at once (more wait in the broker)."""
    metrics_interval: float = Field(default=5.0, ge=0)
    """Seconds between this processor's metrics reports (the gateway's /api/metrics); 0: none."""


def load_settings(cls: type[S], argv: list[str] | None, prog: str, about: str | None = None) -> S:
    """Build settings from command-line flags (kebab-case) over ``TG_*`` environment variables.

    ``--help`` shows the first paragraph of ``about`` (the processor module's docstring),
    each flag with its field's docstring and default, and how the environment is read.
    """
    summary = inspect.cleandoc(about or "").split("\n\n")[0].replace("``", "")
    parser = argparse.ArgumentParser(
        prog=prog,
        description=" ".join(summary.split()) or None,
        epilog=HELP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source: CliSettingsSource[S] = CliSettingsSource(cls, root_parser=parser, cli_prog_name=prog)
    return cls(_cli_settings_source=source(args=argv if argv is not None else True))
