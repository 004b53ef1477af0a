"""tg-start / tg-stop as real subprocesses: up, data written, crash restart, stop, restart."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import aiohttp

from tests.support.launcher import P, S, publish, query
from tests.support.poll import eventually
from tests.support.stack import run_cli
from trustgraph_base.messaging import free_port


async def test_start_stop_restart_keeps_data(start, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data, port = tmp_path / "tg", free_port()
    url = f"http://localhost:{port}/"
    first = await start(data, port)
    assert url in await first.wait_for("explaingraph is up:")
    assert url in await first.wait_for("trace viewer:")
    async with (
        aiohttp.ClientSession() as http,
        http.get(url) as page,
    ):  # the printed URL is the viewer
        assert page.status == 200 and "<title>explaingraph" in await page.text()
    offline = [ln for ln in first.lines if "offline engine" in ln]
    assert offline == [
        "answers come from the offline engine (no LLM configured): to use a real LLM, set "
        "TG_LLM_BASE_URL and TG_LLM_MODEL (e.g. TG_LLM_BASE_URL=http://localhost:11434/v1 "
        "TG_LLM_MODEL=llama3.2 for Ollama) before tg-start; README: Using a real LLM"
    ]
    broker_port = (data / "broker" / "port").read_text()
    await publish(data)
    found = await eventually(lambda: query(url), lambda r: "hello" in r[1])
    assert found[1] == f'<{S}> <{P}> "hello" .\n'

    code, _, err = await run_cli("tg-start", "--data-dir", str(data), "--port", str(free_port()))
    assert code == 1 and f"already running on {data} (pid {first.proc.pid})" in err
    assert f"'tg-stop --data-dir {data}'" in err and len(err.splitlines()) == 1
    code, _, err = await run_cli("tg-start", "--data-dir", str(tmp_path / "x"), "--port", str(port))
    assert (
        code == 1 and err == f"Error: port {port} is already in use — pass --port with a free one\n"
    )

    children = json.loads((data / "run" / "children.json").read_text())
    os.kill(children["chunker"], signal.SIGKILL)
    assert "chunker exited (code -9); restarting" in await first.wait_for("chunker exited")

    code, out, _ = await run_cli("tg-stop", "--data-dir", str(data))
    assert code == 0 and out.endswith("explaingraph stopped.\n")
    assert await asyncio.wait_for(first.proc.wait(), 30) == 0
    assert not (data / "launcher.pid").exists()
    code, _, err = await run_cli("tg-stop", "--data-dir", str(data))
    assert code == 1 and "not running" in err
    nowhere = tmp_path / "nonexistent"
    code, _, err = await run_cli("tg-stop", "--data-dir", str(nowhere))
    assert (code, err) == (
        1,
        f"Error: explaingraph is not running on {nowhere} (no such directory)\n",
    )
    assert not nowhere.exists()  # looking did not create it

    second = await start(
        data, port, {"TG_LLM_BASE_URL": "http://127.0.0.1:9/v1", "TG_LLM_MODEL": "tiny"}
    )
    configured = await second.wait_for("answers come from")
    assert configured == "answers come from the LLM at http://127.0.0.1:9/v1 (model tiny)"
    await second.wait_for("explaingraph is up:")
    assert (data / "broker" / "port").read_text() == broker_port
    assert (await query(url))[1] == f'<{S}> <{P}> "hello" .\n'
    second.proc.send_signal(signal.SIGINT)  # what Ctrl-C does
    assert await asyncio.wait_for(second.proc.wait(), 30) == 0
    assert "explaingraph stopped." in await second.wait_for("stopped.")


async def test_the_broker_and_gateway_ports_can_be_set(start, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data, port, broker = tmp_path / "tg", free_port(), free_port()
    running = await start(data, port, {"TG_BROKER_PORT": str(broker)})
    assert await running.wait_for("broker up on") == f"broker up on pulsar://127.0.0.1:{broker}"
    await running.wait_for("explaingraph is up:")
    assert (data / "broker" / "port").read_text() == str(broker)
    await publish(data)
    url = f"http://localhost:{port}/"
    found = await eventually(lambda: query(url), lambda r: "hello" in r[1])
    assert found[1] == f'<{S}> <{P}> "hello" .\n'

    # Taken ports are refused in one line, naming the flag that sets them (or its variable).
    other, gateway = str(tmp_path / "other"), str(free_port())
    code, _, err = await run_cli(
        "tg-start", "--data-dir", other, "--port", gateway, "--broker-port", str(broker)
    )
    assert (code, err) == (
        1,
        f"Error: port {broker} is already in use — pass --broker-port with a free one\n",
    )
    code, _, err = await run_cli("tg-start", "--data-dir", other, env={"TG_PORT": str(port)})
    assert (code, err) == (
        1,
        f"Error: port {port} is already in use — pass --port with a free one\n",
    )


async def test_a_signing_key_others_may_read_stops_the_start(tmp_path: Path) -> None:
    """issue 30: a key file with wrong permissions refuses the start and says why, in one
    line; tg-start used to start everything and restart the store for ever (its reason only
    in logs/store.log)."""
    from trustgraph_base.integrity.keys import make_private

    data = tmp_path / "tg"
    key = data / "data" / "signing" / "key.pem"
    key.parent.mkdir(parents=True)
    make_private(key)
    key.chmod(0o644)
    port = free_port()
    code, out, err = await run_cli("tg-start", "--data-dir", str(data), "--port", str(port))
    assert (code, err) == (
        1,
        f"Error: signing key {key} has mode 0644: others may read it. Run 'chmod 600 {key}' "
        "(and replace the key if it was exposed).\n",
    )
    assert "broker up" not in out and not (data / "launcher.pid").exists()
    # a key the store is told to use elsewhere is checked where it is
    elsewhere = tmp_path / "elsewhere.pem"
    make_private(elsewhere)
    elsewhere.chmod(0o640)
    code, _, err = await run_cli(
        "tg-start",
        "--data-dir",
        str(tmp_path / "other"),
        "--port",
        str(port),
        env={"TG_SIGNING_KEY": str(elsewhere)},
    )
    assert code == 1 and err.startswith(f"Error: signing key {elsewhere} has mode 0640")
    # a key file that is no key (0600): the store exited at once and was restarted for ever
    # while tg-start said it was up; now refused the same way, in one line
    key.write_text("garbage\n")
    key.chmod(0o600)
    code, out, err = await run_cli("tg-start", "--data-dir", str(data), "--port", str(port))
    assert code == 1 and "broker up" not in out, (code, out, err)
    assert err.startswith(f"Error: signing key {key} is not an unencrypted PEM private key: ")
    assert len(err.splitlines()) == 1, err
