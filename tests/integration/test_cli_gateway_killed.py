"""The gateway killed (-9) while a question is answered, as users ask (streaming, the
default): tg-invoke-agent and tg-invoke-document-rag end with one line that names the trace
the first streamed explain event gave, and that trace completes on the server. The LLM (an
OpenAI stand-in) takes 3 s per reply, so the kill lands mid-answer."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import pytest

from tests.support.abstain import load_texts
from tests.support.launcher import running, start_gateway
from tests.support.openai_stub import OpenAIStub, Reply
from tests.support.poll import eventually
from tests.support.processors import EVERY
from tests.support.stack import CliResult, Stack, command_line
from trustgraph_base.messaging import free_port
from trustgraph_base.provenance.uris import trace_root

REPLY = Reply(text="Thought: I know it.\nFinal Answer: Paris is the capital of France.", delay=3)


async def killed_mid_answer(command: str, gateway: asyncio.subprocess.Process, url: str) -> str:
    """Run ``command -x``, kill the gateway once an explain event is shown; its stderr."""
    env = {k: v for k, v in os.environ.items() if k not in ("TRUSTGRAPH_URL", "TRUSTGRAPH_TOKEN")}
    proc = await asyncio.create_subprocess_exec(
        *command_line(command), "-x", "-q", "What is the capital of France?", "--api-url", url,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    assert proc.stderr is not None
    first = (await asyncio.wait_for(proc.stderr.readline(), 60)).decode()
    assert first.startswith("Explain: "), first
    gateway.send_signal(signal.SIGKILL)
    _, rest = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 1
    return first + rest.decode()


@pytest.mark.timeout(300)
async def test_a_gateway_killed_mid_answer_names_the_trace(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    llm = {"text-completion": {"llm_base_url": "", "llm_retries": 0}}
    async with OpenAIStub(default=REPLY) as stub:
        llm["text-completion"]["llm_base_url"] = stub.base_url
        async with Stack(
            pulsar_url, prefix, EVERY, data_dir=tmp_path / "data", settings=llm
        ) as stack:
            text = {"france.md": "Paris is the capital of France. It lies on the Seine.\n"}
            await load_texts(stack, "trustgraph", tmp_path, text)
            for n, command in enumerate(("tg-invoke-agent", "tg-invoke-document-rag")):
                port = free_port()
                gateway = await start_gateway(pulsar_url, prefix, tmp_path / f"gw{n}", port)
                async with running(gateway):
                    err = await killed_mid_answer(command, gateway, f"http://127.0.0.1:{port}/")
                root = trace_root(err.splitlines()[0].removeprefix("Explain: "))
                assert root, err
                last = err.splitlines()[-1]
                assert last.startswith("Error: ") and last.endswith(
                    f"; not asked again, as the answer may have completed: tg-show-explain-trace {root}"
                ), err

                async def shown(root: str = root) -> CliResult:
                    return await stack.cli("tg-show-explain-trace", root, "--format", "json")

                # the answer goes on without the gateway: its trace is completed
                def complete(r: CliResult) -> bool:
                    return r.code == 0 and json.loads(r.stdout)["status"] != "in-progress"

                found = json.loads((await eventually(shown, complete, 90)).stdout)
                assert (found["id"], found["status"]) == (root, "complete"), found
