"""tg-invoke-agent's usage: help with examples, usage errors before any network call."""

from __future__ import annotations

from click.testing import CliRunner

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_cli.errors import question_lost
from trustgraph_cli.invoke_agent import main


def test_help_shows_examples_and_options() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    assert 'tg-invoke-agent -q "What is the capital of France?"' in result.output
    for option in ("--verbose", "--explainable", "--no-streaming", "--max-iterations", "--group"):
        assert option in result.output


def test_usage_errors_exit_2() -> None:
    runner = CliRunner()
    missing = runner.invoke(main, [])
    assert missing.exit_code == 2 and "Missing option '-q'" in missing.output
    empty = runner.invoke(main, ["-q", "  "])
    assert empty.exit_code == 2 and "the question is empty" in empty.output
    bad_limit = runner.invoke(main, ["-q", "x", "--max-iterations", "0"])
    assert bad_limit.exit_code == 2 and "--max-iterations" in bad_limit.output


def test_unreachable_gateway_is_one_line() -> None:
    result = CliRunner().invoke(main, ["-q", "hi", "-u", "http://127.0.0.1:1/"])
    assert result.exit_code == 1
    assert "cannot reach gateway at http://127.0.0.1:1/" in result.output
    assert "Traceback" not in result.output
    assert "not asked again" not in result.output  # refused: the question was never sent


def test_a_question_cut_off_once_sent_says_it_is_not_asked_again() -> None:
    closed = ServiceError(ErrorType.CONNECTION_CLOSED, "the gateway closed the connection")
    assert question_lost(closed, "") == (
        "not asked again, as the answer may have completed: see tg-list-explain-traces"
    )
    assert question_lost(closed, "urn:trustgraph:question:q1") == (
        "not asked again, as the answer may have completed: "
        "tg-show-explain-trace urn:trustgraph:question:q1"
    )
    assert question_lost(ServiceError(ErrorType.BAD_REQUEST, "no"), "") is None  # answered
