"""The README's examples, run as written against a real stack, must print what it shows.

Every plain code block of README.md that holds ``$ tg-…`` (or the demo's ``==> tg-…``) lines
is run in order, after the demo's own setup (the sample corpus loaded as scripts/demo loads
it). Output is stdout and stderr as a terminal would interleave them, piped (no colour,
100 columns). Ids, clock times and latencies are masked; an id the README shows is mapped to
the real one in order, so a later command that names it runs on the real trace. A line
``…`` stands for any lines. tg-start and tg-stop are not run here (the stack runs in the
test; tests/integration/test_launcher_start_stop.py runs them).
``TG_UPDATE_README=1`` rewrites the shown outputs from this run.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
from pathlib import Path

from tests.support.processors import EVERY
from tests.support.stack import Stack, command_line, stack_fixture

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PROMPT = re.compile(r"^(\$|==>) (tg-\S+.*)$")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIMES = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?Z?")
LATENCY = re.compile(r"\b\d+ ms\b")
NOT_RUN = ("tg-start", "tg-stop")
ENV = {"COLUMNS": "100", "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"}
DEMO_FILES = [
    *sorted(ROOT.glob("samples/*.txt")),
    ROOT / "samples/writers.md",
    *sorted(ROOT.glob("samples/*.pdf")),
]


def examples(text: str) -> list[tuple[str, list[str], tuple[int, int]]]:
    """(command, shown output lines, span of those lines in the README) for every example.

    Only plain fences (no language) hold examples; a fence with a language is source.
    """
    found: list[tuple[str, list[str], tuple[int, int]]] = []
    offset, fence, current = 0, None, None
    shown: list[str] = []

    def close() -> None:
        nonlocal current, shown
        if current is not None:
            found.append(
                (
                    current[0],
                    [x.rstrip("\n") for x in shown],
                    (current[1], current[1] + sum(len(x) for x in shown)),
                )
            )
        current, shown = None, []

    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\n")
        if bare.startswith("```"):
            if fence is None:
                fence = bare[3:].strip()
            else:
                close()
                fence = None
        elif fence == "":
            match = PROMPT.match(bare)
            if match:
                close()
                current = (match.group(2), offset + len(line))
            elif current is not None:
                shown.append(line)
        offset += len(line)
    return found


def masked(text: str) -> str:
    text = UUID.sub("<uuid>", text)
    text = TIMES.sub("<time>", text)
    return LATENCY.sub("<n> ms", text)


def matches(shown: list[str], actual: list[str]) -> bool:
    """``shown`` equals ``actual`` after masking; a ``…`` line stands for any lines."""
    if "…" in [s.strip() for s in shown]:
        cut = [s.strip() for s in shown].index("…")
        head, tail = shown[:cut], shown[cut + 1 :]
        return (
            len(actual) >= len(head) + len(tail)
            and matches(head, actual[: len(head)])
            and matches(tail, actual[len(actual) - len(tail) :] if tail else [])
        )
    return [masked(s).rstrip() for s in shown] == [masked(a).rstrip() for a in actual]


def filled(shown: list[str], actual: list[str]) -> list[str]:
    """What to write back: the actual lines, keeping a ``…`` where the README had one."""
    stripped = [s.strip() for s in shown]
    if "…" not in stripped:
        return actual
    cut = stripped.index("…")
    tail = len(shown) - cut - 1
    return actual[:cut] + ["…"] + (actual[len(actual) - tail :] if tail else [])


async def run(url: str, command: str) -> list[str]:
    proc = await asyncio.create_subprocess_exec(
        *command_line(shlex.split(command)[0]),
        *shlex.split(command)[1:],
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, **ENV, "TRUSTGRAPH_URL": url},
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 120)
    return out.decode().rstrip("\n").splitlines()


stack = stack_fixture(EVERY)


async def settled(url: str) -> None:
    """Until the store holds every edge the librarian counted (it lags 'complete' a little)."""
    import json

    for _ in range(100):
        docs = json.loads("\n".join(await run(url, "tg-list-documents --format json")))
        counts = []
        for doc in docs:
            tree = await run(url, f"tg-show-document-hierarchy {doc['id']}")
            counts.append(sum(" → " in line for line in tree) == doc["edges"])
        if all(counts):
            return
        await asyncio.sleep(0.2)


async def test_the_readme_shows_what_the_commands_print(stack: Stack) -> None:
    text = README.read_text(encoding="utf-8")
    for file in DEMO_FILES:  # what scripts/demo does before the excerpt it shows
        assert (await run(stack.url, f"tg-load-document {file.relative_to(ROOT)}"))[-1].startswith(
            "urn:"
        )
    await settled(stack.url)
    ids: dict[str, str] = {}
    failures, updates = [], []
    for command, shown, span in examples(text):
        if command.split()[0] in NOT_RUN:
            continue
        for readme_id, real in ids.items():
            command = command.replace(readme_id, real)
        actual = await run(stack.url, command)
        if command.startswith("tg-load-document"):
            await settled(stack.url)
        for readme_id, real in zip(
            UUID.findall("\n".join(shown)), UUID.findall("\n".join(actual)), strict=False
        ):
            ids.setdefault(readme_id, real)
        if not matches(shown, actual):
            failures.append(
                f"$ {command}\n--- README\n"
                + "\n".join(shown)
                + "\n--- printed\n"
                + "\n".join(actual)
            )
            updates.append((span, filled(shown, actual)))
    if os.environ.get("TG_UPDATE_README") and updates:
        for (start, end), lines in sorted(updates, reverse=True):
            text = text[:start] + "".join(line + "\n" for line in lines) + text[end:]
        for readme_id, real in ids.items():  # the commands name the ids now shown
            text = text.replace(readme_id, real)
        README.write_text(text, encoding="utf-8")
        return
    assert not failures, "\n\n".join(failures)
