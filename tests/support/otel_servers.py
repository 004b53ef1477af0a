"""Phoenix and MLflow servers for the export tests, each from its own venv (scripts/otel-server).

    async with phoenix_server(tmp_path) as url:   # http://127.0.0.1:PORT
        ...

Without the venv the test is skipped, unless ``TG_REQUIRE_OTEL_SERVERS`` is set (``.ci/run``
sets it), where it fails. ``TG_OTEL_VENVS`` says where the venvs are (default: the checkout).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest

from trustgraph_base.messaging.broker import free_port

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 300.0  # Phoenix makes its database at first start: 45-85 s on 2 busy cores


def venv_bin(name: str) -> Path:
    """The bin folder of the server's venv; skip (or fail, in CI) when it is not installed."""
    where = Path(os.environ.get("TG_OTEL_VENVS") or ROOT) / f".venv-{name}" / "bin"
    if not (where / name).exists():
        why = f"{name} is not installed: run scripts/otel-server {name}"
        if os.environ.get("TG_REQUIRE_OTEL_SERVERS"):
            pytest.fail(why)
        pytest.skip(why)
    return where


@asynccontextmanager
async def served(argv: list[str], env: dict[str, str], url: str, log: Path) -> AsyncIterator[str]:
    """Run ``argv`` until its ``url`` answers; stop it (its whole process group) after."""
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            env={**os.environ, **env},
            stdout=out,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            await _until_up(url, proc, log)
            yield url
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), 20)
            except TimeoutError:
                os.killpg(proc.pid, signal.SIGKILL)
                await proc.wait()


async def _until_up(url: str, proc: asyncio.subprocess.Process, log: Path) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_TIMEOUT
    async with aiohttp.ClientSession() as http:
        while loop.time() < deadline:
            if proc.returncode is not None:
                raise RuntimeError(f"{url} exited ({proc.returncode}): {log.read_text()[-2000:]}")
            try:
                async with http.get(url, timeout=aiohttp.ClientTimeout(total=2)) as resp:
                    if resp.status < 500:
                        return
            except (aiohttp.ClientError, TimeoutError):
                pass
            await asyncio.sleep(0.5)
    raise TimeoutError(
        f"{url} did not answer within {START_TIMEOUT:g} s: {log.read_text()[-2000:]}"
    )


@asynccontextmanager
async def phoenix_server(tmp: Path) -> AsyncIterator[str]:
    """``phoenix serve`` on loopback with its data (SQLite) in ``tmp``; its base URL."""
    bin_dir = venv_bin("phoenix")
    port = free_port()
    env = {
        "PHOENIX_WORKING_DIR": str(tmp / "phoenix"),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(free_port()),
    }
    url = f"http://127.0.0.1:{port}"
    async with served([str(bin_dir / "phoenix"), "serve"], env, url, tmp / "phoenix.log"):
        yield url


@asynccontextmanager
async def mlflow_server(tmp: Path) -> AsyncIterator[str]:
    """``mlflow server`` on loopback with its store (SQLite) in ``tmp``; its base URL."""
    bin_dir = venv_bin("mlflow")
    port = free_port()
    argv = [str(bin_dir / "mlflow"), "server", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--backend-store-uri", f"sqlite:///{tmp / 'mlflow.db'}", "--workers", "1"]
    argv += ["--default-artifact-root", str(tmp / "mlflow-artifacts")]
    url = f"http://127.0.0.1:{port}"
    async with served(argv, {}, url + "/health", tmp / "mlflow.log"):
        yield url


async def mlflow_spans(url: str) -> list[dict[str, object]]:
    """Every span of the Default experiment's traces, read with MLflow's own client
    (``mlflow.search_traces`` in its venv): ``[{trace_id, span_id, parent_id, name,
    attributes}]``."""
    script = (
        "import json, mlflow, sys\n"
        "mlflow.set_tracking_uri(sys.argv[1])\n"
        "out = []\n"
        "for t in mlflow.search_traces(experiment_ids=['0'], return_type='list'):\n"
        "    for s in t.data.spans:\n"
        "        out.append({'trace_id': t.info.trace_id, 'span_id': s.span_id,\n"
        "                    'parent_id': s.parent_id, 'name': s.name, 'span_type': s.span_type,\n"
        "                    'attributes': s.attributes})\n"
        "print(json.dumps(out, default=str))\n"
    )
    proc = await asyncio.create_subprocess_exec(
        str(venv_bin("mlflow") / "python"), "-c", script, url,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode == 0, err.decode()[-2000:]
    spans: list[dict[str, object]] = json.loads(out)
    return spans
