"""Verification and abstention end to end, as a user meets them (issue 29 items 1-3): the
samples loaded through the gateway; a question they answer is answered, its claims recorded
supported; an out-of-corpus question gets "The documents do not say" from
tg-invoke-graph-rag and tg-invoke-document-rag, the trace keeps the draft, its verdicts and
why; tg-show-explain-trace marks them, tg-list-explain-traces --verdict narrows by them and
tg-show-faithfulness counts them. With ``unsupported_answers=keep`` the unsupported answer
is given, marked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.processors import EVERY, RAG, SAMPLES
from tests.support.stack import Stack

USER = "vera"
MERCURY = "What is the boiling point of mercury?"
FRANCE = "What is the capital of France?"
ABSTAINED = "The documents do not say"
RAGS = ("tg-invoke-graph-rag", "tg-invoke-document-rag")


async def load_samples(stack: Stack) -> None:
    for name in ("world-facts.pdf", "capitals.txt", "scientists.txt", "writers.md"):
        loaded = await stack.cli("tg-load-document", str(SAMPLES / name), "-U", USER)
        assert loaded.code == 0, loaded.stderr


async def as_json(stack: Stack, *argv: str) -> Any:
    out = await stack.cli(*argv, "--format", "json", "-U", USER)
    assert out.code == 0, out.stderr
    return json.loads(out.stdout)


def trace_of(stderr: str) -> str:
    return next(ln for ln in stderr.splitlines() if ln.startswith("trace: ")).removeprefix(
        "trace: "
    )


async def test_supported_answers_abstentions_and_what_shows_them(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
        await load_samples(stack)
        # the agent tries each tool; neither has a supported answer, so it says so
        agent = await stack.cli("tg-invoke-agent", "-v", "-q", MERCURY, "-U", USER)
        assert agent.code == 0, agent.stderr
        assert f"{ABSTAINED}: none of my tools found a supported answer" in agent.stdout
        steps = agent.stdout + agent.stderr
        assert "Action: document-query" in steps  # it tried the second tool
        assert f"Observation: {ABSTAINED}: " in steps  # the verdict, observed
        agent_withheld = trace_of(agent.stderr)
        agent = await stack.cli("tg-invoke-agent", "-q", FRANCE, "-U", USER)
        assert agent.code == 0 and "Paris is the capital of France." in agent.stdout
        agent_answered = trace_of(agent.stderr)
        answered, withheld = [], []
        for command in RAGS:
            out = await stack.cli(command, "-q", FRANCE, "-U", USER)
            assert out.code == 0, out.stderr
            assert "Paris" in out.stdout and ABSTAINED not in out.stdout
            assert "verification:" not in out.stderr  # supported: nothing to mark
            answered.append(trace_of(out.stderr))
            out = await stack.cli(command, "-q", MERCURY, "-U", USER)
            assert out.code == 0, out.stderr
            assert out.stdout.startswith(ABSTAINED + ": "), out.stdout
            withheld.append(trace_of(out.stderr))

        # the trace keeps the draft answer, each claim's verdict and why it was withheld
        graph = await as_json(stack, "tg-show-explain-trace", withheld[0])
        check = graph["verification"]
        assert check["verdict"] == "unsupported" and check["method"] == "heuristic"
        assert check["abstention"] == f"{ABSTAINED}: {check['reason']}."
        assert graph["answer"] and ABSTAINED not in graph["answer"]  # the draft, kept
        assert all(c["verdict"] in ("supported", "not-supported") for c in graph["claims"])
        shown = await stack.cli("tg-show-explain-trace", withheld[0], "-U", USER)
        assert f"Verdict: UNSUPPORTED: {check['reason']}" in shown.stdout
        assert f"Answer given: {ABSTAINED}" in shown.stdout
        evidence = await stack.cli("tg-show-evidence", withheld[1], "-U", USER)
        assert evidence.code == 0, evidence.stderr
        assert "Verified: UNSUPPORTED: " in evidence.stdout
        assert f"Answer given: {ABSTAINED}" in evidence.stdout
        report = await as_json(stack, "tg-show-evidence", withheld[1])
        assert report[0]["verification"]["verdict"] == "unsupported"
        assert [c["verdict"] for c in report[0]["claims"]] == ["not-supported"]
        report = await as_json(stack, "tg-show-evidence", answered[0])
        assert {c["verdict"] for c in report[0]["claims"]} == {"supported"}
        good = await as_json(stack, "tg-show-explain-trace", answered[1])
        assert good["verification"]["verdict"] == "supported"
        assert good["claims"] and all(c["verdict"] == "supported" for c in good["claims"])

        # the list narrowed by verdict
        # (the agents' conclusions are verified too: test_agent_verified.py)
        listed = await as_json(stack, "tg-list-explain-traces", "--verdict", "unsupported")
        assert sorted(t["id"] for t in listed) == sorted([*withheld, agent_withheld])
        assert {t["verdict"] for t in listed} == {"unsupported"}
        listed = await as_json(stack, "tg-list-explain-traces", "--verdict", "supported")
        assert sorted(t["id"] for t in listed) == sorted([*answered, agent_answered])
        table = await stack.cli("tg-list-explain-traces", "--verdict", "unsupported", "-U", USER)
        assert "Verdict" in table.stdout and MERCURY[:20] in table.stdout
        none = await stack.cli(
            "tg-list-explain-traces", "--verdict", "partly-supported", "-U", USER
        )
        assert none.code == 0 and "No partly-supported traces" in none.stdout
        wrong = await stack.cli("tg-list-explain-traces", "--verdict", "maybe", "-U", USER)
        assert wrong.code == 2 and "maybe" in wrong.stderr

        # the collection's faithfulness: 4 RAG answers and 2 agent conclusions today, 3 withheld
        days = await as_json(stack, "tg-show-faithfulness")
        assert len(days) == 1 and days[0]["answers"] == 6 and days[0]["abstained"] == 3
        assert 0 < days[0]["supported"] <= days[0]["claims"]
        # each supported answer, the agent's conclusion too, has a supported claim counted
        assert days[0]["supported"] >= len([*answered, agent_answered]), days
        assert days[0]["share"] == round(days[0]["supported"] / days[0]["claims"], 4)
        text = await stack.cli("tg-show-faithfulness", "--by", "hour", "-U", USER)
        assert text.code == 0 and "Share" in text.stdout and "%" in text.stdout
        assert "Abstained" in text.stdout.splitlines()[0]  # the JSON's name for the column
        empty = await stack.cli("tg-show-faithfulness", "-U", USER, "-C", "nothing")
        assert empty.code == 1 and "Error: no collection 'nothing' of user" in empty.stderr
        bad = await stack.cli("tg-show-faithfulness", "--since", "yesterday", "-U", USER)
        assert bad.code == 1 and "yesterday" in bad.stderr and "Traceback" not in bad.stderr


async def test_keep_gives_the_unsupported_answer_marked(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    keep = {"unsupported_answers": "keep"}
    settings = {"graph-rag": keep, "document-rag": keep}
    async with Stack(pulsar_url, prefix, RAG, data_dir=tmp_path, settings=settings) as stack:
        await load_samples(stack)
        for command in RAGS:
            out = await stack.cli(command, "-q", MERCURY, "-U", USER)
            assert out.code == 0, out.stderr
            assert ABSTAINED not in out.stdout and out.stdout.strip()
            assert "verification: UNSUPPORTED: " in out.stderr
            view = await as_json(stack, "tg-show-explain-trace", trace_of(out.stderr))
            assert view["verification"]["verdict"] == "unsupported"
            assert view["verification"]["abstention"] is None
