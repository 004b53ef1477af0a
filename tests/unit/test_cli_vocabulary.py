"""One flag and format vocabulary for every tg-* command (docs/commands.md), read from pyproject.

Commands are found from ``[project.scripts]``, so a new command is held to the same rules.
"""

from __future__ import annotations

import shlex
import tomllib
from importlib import import_module
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from trustgraph_cli.options import FORMAT_ALIASES
from trustgraph_cli.terminal import CliCommand

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
CLICK = {
    name: target
    for name, target in SCRIPTS.items()
    if not name.startswith("tg-proc-") and name != "tg-gateway"
}
# tg-verify-audit and tg-rotate-signing-key work offline (a bundle, the data folder), and
# tg-store-shards on the store's servers beside the store processors: no gateway options.
OPERATOR = ("tg-start", "tg-stop", "tg-verify-audit", "tg-rotate-signing-key", "tg-store-shards")
CLIENTS = {name for name in CLICK if name not in OPERATOR}
FORMATS = {
    "text",
    "table",
    "json",
    "csv",
    "turtle",
    "ntriples",
    "trig",
    "jsonld",
    "provn",
    "provjson",
}


def command(name: str) -> click.Command:
    module, attr = CLICK[name].split(":")
    found = getattr(import_module(module), attr)
    assert isinstance(found, click.Command)
    return found


def options(name: str) -> list[click.Option]:
    return [p for p in command(name).params if isinstance(p, click.Option)]


def flags(name: str) -> dict[str, click.Option]:
    return {flag: opt for opt in options(name) for flag in opt.opts}


def example_args(example: str) -> list[str]:
    """The arguments of one shell example line, up to a redirection, pipe or comment."""
    lexer = shlex.shlex(example, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words: list[str] = []
    for word in lexer:
        if word in (">", ">>", "|", ";", "&&", "<"):
            break
        words.append(word)
    return words[1:]


@pytest.mark.parametrize("name", sorted(CLICK))
def test_every_option_has_help_and_the_help_has_examples_that_parse(name: str) -> None:
    cmd = command(name)
    assert [o.name for o in options(name) if not o.help] == []
    result = CliRunner().invoke(cmd, ["--help"])
    assert result.exit_code == 0 and "Example" in result.output
    # click's no-rewrap mark (\b) works only at a paragraph's start; elsewhere it is printed
    # (escaped by the terminal guard, as "\x08").
    assert "\b" not in result.output and "\\x08" not in result.output, name
    examples = [
        ln.strip() for ln in (cmd.epilog or "").splitlines() if ln.strip().startswith(name + " ")
    ]
    assert examples, f"{name} --help shows no example"
    for example in examples:
        with cmd.make_context(name, example_args(example)) as ctx:
            assert ctx.command is cmd


# Key management acts on no user's data: no -U/-C (the admin token names the user per key).
ADMIN = {"tg-create-api-key", "tg-list-api-keys", "tg-revoke-api-key"}


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_client_commands_share_the_gateway_options(name: str) -> None:
    have = flags(name)
    shared = [("-u", "--api-url"), ("-t", "--token"), ("-v", "--verbose")]
    if name not in ADMIN:
        shared += [("-U", "--user"), ("-C", "--collection")]
    for short, long in shared:
        assert have[short] is have[long], f"{name}: {short} is not {long}"
    assert "--debug" in have


@pytest.mark.parametrize("name", sorted(CLICK))
def test_each_short_flag_means_one_thing_everywhere(name: str) -> None:
    meaning = {
        "-g": "--graph",
        "-l": "--limit",
        "-v": "--verbose",
        "-q": "--question",
        "-x": "--explainable",
        "-f": "--file",
        "-u": "--api-url",
        "-t": "--token",
        "-U": "--user",
        "-C": "--collection",
    }
    for short, opt in flags(name).items():
        if short in meaning:
            assert meaning[short] in opt.opts, (
                f"{name}: {short} is {opt.opts}, not {meaning[short]}"
            )
        if "--limit" in opt.opts:
            assert "-l" in opt.opts, f"{name}: --limit without -l"
        if "--graph" in opt.opts:
            assert "-g" in opt.opts


@pytest.mark.parametrize("name", sorted(CLICK))
def test_formats_use_the_shared_names(name: str) -> None:
    fmt = flags(name).get("--format")
    if fmt is None:
        return
    assert isinstance(fmt.type, click.Choice)
    assert set(fmt.type.choices) <= FORMATS
    assert fmt.default == next(iter(fmt.type.choices))


def test_old_format_names_still_work() -> None:
    for name, old, new in (
        ("tg-query-triples", "space", "text"),
        ("tg-show-document-hierarchy", "tree", "text"),
    ):
        assert FORMAT_ALIASES[old] == new
        args = ["--format", old] + (["x"] if name == "tg-show-document-hierarchy" else [])
        with command(name).make_context(name, args) as ctx:
            assert ctx.params["fmt"] == new


@pytest.mark.parametrize(
    ("name", "args", "says"),
    [
        (
            "tg-load-document",
            ["README.md", "--chunk-overlap", "200", "--chunk-size", "100"],
            "must be smaller than --chunk-size 100",
        ),
        ("tg-list-explain-traces", ["--limit", "0"], "'-l' / '--limit'"),
        ("tg-show-explain-trace", [], "Missing argument 'ID'"),
        ("tg-query-triples", ["--format", "yaml"], "'yaml' is not one of 'text', 'json'"),
        ("tg-invoke-agent", ["-q", " "], "the question is empty"),
        (
            "tg-invoke-document-rag",
            ["-q", "w" * 20_001],
            "'-q' / '--question': 20,001 characters, more than the 20,000 a question may have",
        ),
        ("tg-stop", ["--bogus"], "No such option '--bogus'"),
        # a flag users type for one of another name: the one meant (click said '--format')
        (
            "tg-purge-explain-traces",
            ["--before", "30d"],
            "No such option '--before'. Did you mean '--older-than'?",
        ),
        ("tg-list-explain-traces", ["--before=2026-01-01"], "Did you mean '--until'?"),
        ("tg-load-document", ["--type", "text/plain", "x"], "Did you mean '--mime-type'?"),
        ("tg-list-documents", ["--formt", "csv"], "Did you mean '--format'?"),  # click's own
        # an unset variable in a script (-C "$COLL"): refused here, not by the gateway's schema
        ("tg-list-documents", ["-C", ""], "'-C' / '--collection': empty: name a collection"),
        ("tg-sparql", ["-U", " ", "ASK {}"], "'-U' / '--user': empty: name a user"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(name: str, args: list[str], says: str) -> None:
    args = [*args, "-u", "http://127.0.0.1:9/"] if name in CLIENTS else args
    result = CliRunner().invoke(command(name), args, prog_name=name)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith("Error: ") and says in result.stderr
    assert f"(see '{name} --help')" in result.stderr


def test_every_flag_a_synonym_stands_for_exists_and_the_synonyms_do_not() -> None:
    """usage.MEANT: each flag it suggests is some command's, and none it answers is."""
    from trustgraph_base.usage import MEANT

    every = {flag for name in CLICK for flag in flags(name)}
    suggested = {flag for meant in MEANT.values() for flag in meant}
    assert suggested <= every, suggested - every
    typed = set(MEANT) - suggested  # '--until' stands for '--older-than' where it is not
    assert not typed & every, typed & every


def test_verbose_names_each_gateway_request() -> None:
    result = CliRunner().invoke(command("tg-list-documents"), ["-v", "-u", "http://127.0.0.1:9/"])
    assert result.exit_code == 1
    first, last = result.stderr.splitlines()
    assert first == "gateway: POST http://127.0.0.1:9/api/v1/librarian (list-documents)"
    assert last.startswith("Error: cannot reach gateway at http://127.0.0.1:9/")


@pytest.mark.parametrize("name", sorted(CLIENTS))
def test_every_command_prints_through_the_guard(name: str) -> None:
    """One-line usage errors and escaped output come with the class (terminal.CliCommand)."""
    assert isinstance(command(name), CliCommand), f"{name} is not made with options.command"


@pytest.mark.parametrize("name", sorted(n for n in CLICK if "--format" in flags(n)))
def test_a_bad_format_is_one_line_naming_it_and_the_choices(name: str) -> None:
    choice = flags(name)["--format"].type
    assert isinstance(choice, click.Choice)
    args = ["--format", "bogus", *(["-u", "http://127.0.0.1:9/"] if "-u" in flags(name) else [])]
    result = CliRunner().invoke(command(name), args, prog_name=name)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "'bogus' is not one of" in result.stderr
    assert all(f"'{c}'" in result.stderr for c in choice.choices), result.stderr


@pytest.mark.parametrize("name", sorted(n for n in CLICK if "--format" in flags(n)))
def test_every_table_is_also_offered_as_csv(name: str) -> None:
    """README: --format csv wherever a command prints a table."""
    choice = flags(name)["--format"].type
    assert isinstance(choice, click.Choice)
    if "table" in choice.choices:
        assert "csv" in choice.choices, f"{name} prints a table but refuses --format csv"
