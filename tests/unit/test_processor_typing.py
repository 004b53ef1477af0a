"""Typed topics and state: mypy refuses a wrong model published on, or consumed from, a
topic, and a processor's state used as what it is not.

The files under tests/typing mark each line that must fail with ``# mypy: <code>``; this
test type-checks them with the project's mypy settings and compares.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from trustgraph_base.messaging import Context, Processor, Topic
from trustgraph_base.schema import Metadata, PageText, Triples
from trustgraph_base.settings import ProcessorSettings

ROOT = Path(__file__).resolve().parents[2]
TYPING = ROOT / "tests" / "typing"
MARK = re.compile(r"#\s*mypy:\s*([a-z-]+)")
REPORTED = re.compile(r"^[^:]+:(\d+): error: .*\[([a-z-]+)\]$")


def mypy(path: Path) -> tuple[int, set[tuple[int, str]]]:
    """mypy's exit status on ``path`` and its errors as (line, code)."""
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "pyproject.toml", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=110,
    )
    errors = {(int(m[1]), m[2]) for line in done.stdout.splitlines() if (m := REPORTED.match(line))}
    return done.returncode, errors


def marked(path: Path) -> set[tuple[int, str]]:
    lines = path.read_text().splitlines()
    return {(n, m[1]) for n, line in enumerate(lines, 1) if (m := MARK.search(line))}


@pytest.mark.parametrize(
    ("name", "wrongs"),
    [
        ("topics", 4),  # two publishes, a consumer and a batch consumer
        ("state", 3),  # a lifespan of the wrong type, a missing field, untyped state
    ],
)
def test_misuse_fails_mypy_on_the_marked_lines(name: str, wrongs: int) -> None:
    wrong = TYPING / f"{name}_wrong.py"
    expected = marked(wrong)
    assert len(expected) == wrongs
    status, errors = mypy(wrong)
    assert status == 1
    assert errors == expected


@pytest.mark.parametrize("name", ["topics", "state"])
def test_the_correct_counterpart_passes_mypy(name: str) -> None:
    right = TYPING / f"{name}_right.py"
    assert marked(right) == set()
    assert mypy(right) == (0, set())


async def test_publish_refuses_a_wrong_model_at_run_time_too() -> None:
    # For callers mypy does not see (dynamic code): the topic checks the message's type.
    ctx: Context[ProcessorSettings] = Context("t", ProcessorSettings(), bus=None)  # type: ignore[arg-type]
    page = PageText(metadata=Metadata(id="m"), document="d", text="x")
    with pytest.raises(TypeError, match="triples-store carries Triples, not PageText"):
        await ctx.publish(Topic("triples-store", Triples), page)  # type: ignore[misc]


def test_a_consumer_takes_a_topic_not_a_name() -> None:
    proc: Processor[ProcessorSettings] = Processor("p")
    with pytest.raises(TypeError, match="a consumer takes a Topic"):
        proc.consumer("pages")  # type: ignore[arg-type]
