"""The lineage commands' help: examples shown, and every example parses as the command's arguments."""

from __future__ import annotations

import importlib
import shlex

import click
import pytest
from click.testing import CliRunner

COMMANDS = [
    "show_source_usage",
    "remove_document",
    "delete_explain_trace",
    "purge_explain_traces",
    "diff_explain_traces",
    "export_explain_trace",
]


def command(module: str) -> click.Command:
    main = importlib.import_module(f"trustgraph_cli.{module}").main
    assert isinstance(main, click.Command)
    return main


@pytest.mark.parametrize("module", COMMANDS)
def test_help_shows_examples_that_parse(module: str) -> None:
    cmd = command(module)
    result = CliRunner().invoke(cmd, ["--help"])
    assert result.exit_code == 0 and "Examples:" in result.output
    examples = [
        ln.strip() for ln in (cmd.epilog or "").splitlines() if ln.strip().startswith("tg-")
    ]
    assert len(examples) >= 2
    for line in examples:
        cmd.make_context(cmd.name or "tg", shlex.split(line, comments=True)[1:])  # raises if bad


@pytest.mark.parametrize("module", COMMANDS)
def test_missing_argument_is_a_usage_error(module: str) -> None:
    assert CliRunner().invoke(command(module), []).exit_code == 2
