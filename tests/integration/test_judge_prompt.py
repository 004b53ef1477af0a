"""The claim check's judge prompt (``verify-claims``) is in the configuration like every other
prompt: the official ``tg-show-prompts`` lists it, ``tg-set-prompt`` changes it (a bad
template is refused and the old one kept), the next answer's judge is asked with it, and the
verification names it (``tg:prompt``) when an LLM judged — never when the heuristic did."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.agent_stub import step
from tests.support.official import official_bin, run_official
from tests.support.openai_stub import OpenAIStub
from tests.support.processors import INGEST, SAMPLES
from tests.support.stack import CliResult, Stack
from trustgraph_flow.agent import processor as agent
from trustgraph_flow.document_rag import processor as document_rag
from trustgraph_flow.prompts.catalogue import PROMPTS
from trustgraph_flow.prompts.templates import digest
from trustgraph_flow.verify.judge import JUDGE_SYSTEM

QUESTION = "What is the capital of France?"
ANSWER = "Paris is the capital of France."
OWN = "Be strict: a claim is supported only if quoted.\nQ: {{question}}\n\n{{claims}}\n\nJSON:"


def replies(body: dict[str, Any]) -> str:
    """A real LLM's part, by the prompt it is sent: no edges from a chunk, the agent's two
    steps, the answer citing excerpt 1, and each claim the judge is shown supported."""
    system = body["messages"][0]["content"]
    if "You extract knowledge graph edges" in system:
        return json.dumps({"edges": []})
    if "careful research agent" in system:  # ask the documents, then answer from them
        if "Observation [i1/observation]" not in body["messages"][-1]["content"]:
            return step(
                "Ask the documents.", "document-query", [], arguments={"question": QUESTION}
            )
        return step("They say so.", "final-answer", ["i1/observation"], answer=ANSWER)
    if JUDGE_SYSTEM in system:
        schema = body["response_format"]["json_schema"]["schema"]
        numbers = schema["properties"]["claims"]["items"]["properties"]["claim"]["enum"]
        verdicts = [{"claim": n, "verdict": "supported", "score": 0.9} for n in numbers]
        return json.dumps({"relevant": True, "claims": verdicts})
    return json.dumps({"answer": ANSWER, "cited": [1]})


async def official(stack: Stack, name: str, *args: str) -> CliResult:
    return await run_official(official_bin(), stack, name, *args)


async def asked(stack: Stack) -> tuple[str, str]:
    """Ask DocumentRAG; the trace id and the exported trace."""
    done = await stack.cli("tg-invoke-document-rag", "-q", QUESTION)
    assert done.code == 0 and ANSWER in done.stdout, done
    trace = next(ln for ln in done.stderr.splitlines() if ln.startswith("trace: "))
    trace = trace.removeprefix("trace: ")
    exported = await stack.cli("tg-export-explain-trace", trace)
    assert exported.code == 0, exported.stderr
    return trace, exported.stdout


def short(version: str) -> str:
    return version.removeprefix("sha256:")[:16]


async def test_a_judge_prompt_set_with_the_official_client_shows_in_the_next_verification(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    spec = PROMPTS["verify-claims"]
    old, new = spec.digest, digest(spec.system, OWN)
    async with OpenAIStub(default=replies) as stub:
        settings = {"text-completion": {"llm_base_url": stub.base_url, "llm_retries": 0}}
        processors = [*INGEST, document_rag.proc, agent.proc]
        async with Stack(
            pulsar_url, prefix, processors, data_dir=tmp_path, settings=settings
        ) as stack:
            shown = await official(stack, "tg-show-prompts")
            assert "verify-claims:" in shown.stdout and "Your JSON verdicts:" in shown.stdout
            loaded = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"))
            assert loaded.code == 0, loaded.stderr
            first, before = await asked(stack)
            assert short(old) in before and short(new) not in before

            for bad, why in (
                ("{{question}} {{claims}} {{evidence}}", "unknown variable(s) {{evidence}}"),
                ("Q: {{question}}", "missing variable(s) {{claims}}"),
            ):
                refused = await official(stack, "tg-set-prompt", "--id", spec.id, "--prompt", bad)
                assert why in refused.stdout + refused.stderr, refused
            shown = await official(stack, "tg-show-prompts")
            assert "Your JSON verdicts:" in shown.stdout and "{{evidence}}" not in shown.stdout

            done = await official(stack, "tg-set-prompt", "--id", spec.id, "--prompt", OWN)
            assert "Prompt set." in done.stdout, done
            second, after = await asked(stack)  # the very next answer, no restart
            judged = stub.requests[-1]["messages"]
            assert judged[0]["content"] == JUDGE_SYSTEM
            prompt = judged[-1]["content"]
            assert prompt.startswith("Be strict") and f"Claim 1: {ANSWER}" in prompt
            assert short(new) in after and short(old) not in after and "Be strict" in after

            # the verification activity names the prompt (the synthesis its own)
            act = f"<{second}/synthesis/verification>"
            named = await stack.cli("tg-query-triples", "-s", act, "-g", "urn:graph:retrieval")
            assert f"/prompt/verify-claims/{short(new)}" in named.stdout, named
            assert '"llm-judge"' in named.stdout, named
            valid = await stack.cli("tg-validate-explain-trace", second)
            assert valid.code == 0, valid.stdout + valid.stderr

            diff = await stack.cli("tg-diff-explain-traces", first, second)
            assert diff.code == 0, diff.stderr
            assert f"verify-claims {new[:19]}" in diff.stdout, diff.stdout
            assert f"verify-claims {old[:19]}" in diff.stdout

            # the agent's conclusion is checked with it too, as its tool's answer was
            agent_said = await stack.cli("tg-invoke-agent", "-q", QUESTION)
            assert agent_said.code == 0 and agent_said.stdout.startswith(ANSWER), agent_said
            trace = next(ln for ln in agent_said.stderr.splitlines() if ln.startswith("trace: "))
            act = f"<{trace.removeprefix('trace: ')}/final/verification>"
            named = await stack.cli("tg-query-triples", "-s", act, "-g", "urn:graph:retrieval")
            assert f"/prompt/verify-claims/{short(new)}" in named.stdout, named


async def test_the_heuristic_names_no_prompt(pulsar_url: str, prefix: str, tmp_path: Path) -> None:
    """The offline engine's judge is the deterministic check: no prompt, so none recorded."""
    async with Stack(pulsar_url, prefix, [*INGEST, document_rag.proc], data_dir=tmp_path) as stack:
        loaded = await stack.cli("tg-load-document", str(SAMPLES / "capitals.txt"))
        assert loaded.code == 0, loaded.stderr
        done = await stack.cli("tg-invoke-document-rag", "-q", QUESTION)
        assert done.code == 0, done
        trace = next(ln for ln in done.stderr.splitlines() if ln.startswith("trace: "))
        act = f"<{trace.removeprefix('trace: ')}/synthesis/verification>"
        named = await stack.cli("tg-query-triples", "-s", act, "-g", "urn:graph:retrieval")
        assert '"heuristic"' in named.stdout, named
        assert "prompt" not in named.stdout, named
