"""An agent run that fails after it began (its LLM errors at step 2), through tg-invoke-agent
and the store: its conclusion says so (tg:terminationReason "error", the reason, no answer),
the trace list calls it failed and finds it by that status, tg-show-explain-trace shows the
conclusion, the shapes accept it, and the same session sent again is never answered with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp

from tests.support.openai_stub import OpenAIStub, Scripted
from tests.support.poll import eventually
from tests.support.stack import CliResult, Stack
from trustgraph_base.provenance import TG
from trustgraph_flow.agent import processor as agent
from trustgraph_flow.llm import processor as llm
from trustgraph_flow.store import processor as store

QUESTION = "What is the capital of France?"
# Step 1 an unreadable reply (a step of its own), then the LLM fails; the next question is
# answered at once.
SCRIPT: list[Scripted] = ["I am not sure.", 500, "Thought: I know this.\nFinal Answer: Paris."]


def listed(out: CliResult) -> dict[str, str]:
    assert out.code == 0, out.stderr
    return {t["id"]: t["status"] for t in json.loads(out.stdout)}


async def test_a_run_whose_llm_fails_mid_run_ends_in_an_error_conclusion(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    settings: dict[str, dict[str, Any]] = {"agent": {"llm_structured": "none"}}
    async with OpenAIStub(SCRIPT) as stub:
        settings["text-completion"] = {"llm_base_url": stub.base_url, "llm_retries": 0}
        async with Stack(
            pulsar_url,
            prefix,
            [store.proc, llm.proc, agent.proc],
            data_dir=tmp_path,
            settings=settings,
        ) as stack:
            failed = await stack.cli("tg-invoke-agent", "-x", "-q", QUESTION)
            assert (failed.code, failed.stdout) == (1, "")
            assert "the LLM failed" in failed.stderr and "Traceback" not in failed.stderr
            trace = failed.stderr.splitlines()[0].removeprefix("Explain: ")
            assert trace.startswith("urn:trustgraph:agent:"), failed.stderr
            answered = await stack.cli("tg-invoke-agent", "-q", QUESTION)
            assert (answered.code, answered.stdout) == (0, "Paris.\n"), answered.stderr
            done = answered.stderr.strip().splitlines()[-1].removeprefix("trace: ")

            # The list: the failed run is "failed", not "complete"; the status filter finds each.
            every = ("tg-list-explain-traces", "--format", "json")
            rows = await eventually(lambda: stack.cli(*every), lambda r: len(listed(r)) == 2)
            assert listed(rows) == {trace: "failed", done: "complete"}
            only = await stack.cli(*every, "--status", "failed")
            assert listed(only) == {trace: "failed"}
            assert listed(await stack.cli(*every, "--status", "complete")) == {done: "complete"}
            table = await stack.cli("tg-list-explain-traces", "--status", "interrupted")
            assert (table.code, table.stdout.strip()) == (
                0,
                "No interrupted traces in collection 'default' of user 'trustgraph'.",
            )

            # Shown: the conclusion after step 1, with the reason and no answer.
            shown = await stack.cli("tg-show-explain-trace", trace)
            assert shown.code == 0, shown.stderr
            text = shown.stdout
            assert "Status: failed" in text
            assert f"Conclusion: {trace}/final" in text
            ending = text[text.index(f"Conclusion: {trace}/final") :]
            assert "Termination: error" in ending
            assert "Error: the LLM failed: " in ending and "[llm-error]" not in ending
            assert "Answer" not in ending
            assert text.index(f"Analysis 1: {trace}/i1") < text.index("Conclusion:")
            view = json.loads(
                (await stack.cli("tg-show-explain-trace", trace, "--format", "json")).stdout
            )
            assert (view["status"], view["answer"], view["uses"]) == (
                "failed",
                None,
                [f"{trace}/i1"],
            )
            assert view["error"].startswith("the LLM failed: ") and "HTTP 500" in view["error"]

            # The error's type is a fact of its own on the conclusion, beside the reason.
            typed = await stack.cli(
                "tg-query-triples", "-s", f"{trace}/final", "-p", TG.errorType.i, "--format", "json"
            )
            assert typed.code == 0, typed.stderr
            assert [t["o"]["v"] for t in json.loads(typed.stdout)] == ["llm-error"], typed.stdout

            # The trace as written conforms to the shapes (a conclusion with no answer is one
            # that says the run failed, and why).
            valid = await stack.cli("tg-validate-explain-trace", trace)
            assert valid.code == 0, valid.stdout + valid.stderr

            # The same session sent again is refused, not answered from the trace.
            session = trace.removeprefix("urn:trustgraph:agent:")
            url = stack.url + "api/v1/flow/default/service/agent"
            async with aiohttp.ClientSession() as http:
                ask = {"question": QUESTION, "session_id": session}
                async with http.post(url, json=ask) as resp:
                    body = await resp.json()
            assert body.get("error", {}).get("type") == "session-exists", body
            assert "content" not in body or not body["content"]
    assert len(stub.requests) == 3  # nothing asked again
