"""The agent's own conclusion verified (issue 29 item 3), end to end through tg-invoke-agent:
its claims are checked against the claims its tools' GraphRAG / DocumentRAG answers were
verified to hold, recorded as the conclusion's tg:Verification with a tg:Assessment per
claim, and a conclusion nothing supports is withheld — unless unsupported_answers=keep.
Runs on both store backends (TG_TEST_STORE=server)."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox

from tests.integration.test_rag_abstain import (
    ABSTAINED,
    FRANCE,
    MERCURY,
    USER,
    as_json,
    trace_of,
)
from tests.support.processors import EVERY, SAMPLES
from tests.support.stack import Stack
from trustgraph_base.provenance.namespaces import TG


async def load(stack: Stack) -> None:
    for name in ("world-facts.pdf", "capitals.txt"):
        loaded = await stack.cli("tg-load-document", str(SAMPLES / name), "-U", USER)
        assert loaded.code == 0, loaded.stderr


async def test_the_agents_conclusion_is_verified(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
        await load(stack)
        good = await stack.cli("tg-invoke-agent", "-q", FRANCE, "-U", USER)
        assert good.code == 0, good.stderr
        assert good.stdout.startswith("Paris is the capital of France.")
        view = await as_json(stack, "tg-show-explain-trace", trace_of(good.stderr))
        check = view["verification"]
        assert check["uri"].endswith("/final/verification")
        assert (check["verdict"], check["method"]) == ("supported", "heuristic")
        assert check["abstention"] is None
        # its claim cites the claim of the GraphRAG answer its tool returned, itself supported
        [claim] = view["claims"]
        assert (claim["text"], claim["verdict"]) == ("Paris is the capital of France.", "supported")
        [sub] = view["steps"][0]["subtraces"]
        assert claim["cited"] == [c["uri"] for c in sub["claims"]]
        assert {c["verdict"] for c in sub["claims"]} == {"supported"}

        bad = await stack.cli("tg-invoke-agent", "-q", MERCURY, "-U", USER)
        assert bad.code == 0, bad.stderr
        assert "verification:" not in good.stderr + bad.stderr  # supported, or withheld
        assert bad.stdout.startswith(f"{ABSTAINED}: none of my tools found a supported answer")
        withheld = trace_of(bad.stderr)
        view = await as_json(stack, "tg-show-explain-trace", withheld)
        check = view["verification"]
        assert check["verdict"] == "unsupported"
        assert check["reason"] == "no answer of its tools is supported by the evidence it cites"
        assert check["abstention"] == bad.stdout.strip().splitlines()[0]
        assert [c["verdict"] for c in view["claims"]] == ["not-supported"]
        assert view["claims"][0]["cited"] == []

        for trace in (trace_of(good.stderr), withheld):  # the shapes hold (SHACL)
            valid = await stack.cli("tg-validate-explain-trace", trace, "-U", USER)
            assert valid.code == 0, valid.stdout + valid.stderr
            export = await stack.cli("tg-export-explain-trace", trace, "-U", USER)
            assert export.code == 0, export.stderr
            assert f"{trace}/final/verification" in export.stdout  # belongs to the trace
            # how the run ended: answered, or declined ("The documents do not say")
            ended = "abstained" if trace == withheld else "final-answer"
            quads = ox.parse(export.stdout, format=ox.RdfFormat.TRIG)
            reasons = [q.object.value for q in quads if q.predicate.value == TG.terminationReason.i]
            assert reasons == [ended]
        listed = await as_json(stack, "tg-list-explain-traces", "--verdict", "supported")
        assert [t["id"] for t in listed] == [trace_of(good.stderr)]
        listed = await as_json(stack, "tg-list-explain-traces", "--verdict", "unsupported")
        assert [t["id"] for t in listed] == [withheld]


async def test_keep_records_the_verdict_without_withholding(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    settings = {"agent": {"unsupported_answers": "keep"}}
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path, settings=settings) as stack:
        await load(stack)
        out = await stack.cli("tg-invoke-agent", "-q", MERCURY, "-U", USER)
        assert out.code == 0, out.stderr
        view = await as_json(stack, "tg-show-explain-trace", trace_of(out.stderr))
        check = view["verification"]
        # unsupported, recorded so, but nothing withheld: the caller got the conclusion as is,
        # marked on stderr as tg-invoke-graph-rag marks a kept answer
        assert check["verdict"] == "unsupported" and check["abstention"] is None
        assert view["answer"] == out.stdout.strip().splitlines()[0]
        assert f"verification: UNSUPPORTED: {check['reason']}" in out.stderr


async def test_an_answer_about_errors_is_an_answer(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    """A manual's answer that speaks of errors or of what cannot be found is the answer, not
    a failed tool: the offline agent read 'error' anywhere in an observation as a tool's
    failure and said the documents do not say after both tools had answered, supported."""
    manual = tmp_path / "memcheck.txt"
    manual.write_text(
        "Memcheck\n\nMemcheck detects memory errors in C programs.\n"
        "Memcheck could not find leaks in static memory.\n",
        encoding="utf-8",
    )
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as stack:
        loaded = await stack.cli("tg-load-document", str(manual), "-U", USER, "-C", "manuals")
        assert loaded.code == 0, loaded.stderr
        out = await stack.cli(
            "tg-invoke-agent", "-q", "What does Memcheck detect?", "-U", USER, "-C", "manuals"
        )
        assert out.code == 0, out.stderr
        assert out.stdout.startswith("Memcheck detects memory errors in C programs."), out.stdout
        view = await as_json(stack, "tg-show-explain-trace", trace_of(out.stderr), "-C", "manuals")
        assert view["verification"]["verdict"] == "supported"
        assert len(view["steps"]) == 1  # the first tool's answer was taken
