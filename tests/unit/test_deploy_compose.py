"""docker-compose.yml and the Dockerfile, checked statically against the code they run.

No Docker engine is needed: the compose file is parsed (PyYAML applies its ``<<`` merges as
Compose does), each service's environment is resolved the way Compose would and fed to the
real settings class of the processor it runs.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.gateway.server import GatewaySettings, bind_host, effective_token
from trustgraph_flow.registry import PROCESSORS
from trustgraph_flow.store.backends.sharded.opening import parse_shards
from trustgraph_flow.store.service.settings import StoreSettings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
SCRIPTS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
DOCKERIGNORE = (ROOT / ".dockerignore").read_text().split()

BROKER = "pulsar"
# The engines that hold the data, each a server of its own (not our image): the setting
# that points a processor at it, and the port that setting must name.
STORE_SERVERS, VECTORS_SERVER = ("oxigraph-a", "oxigraph-b", "oxigraph-c"), "milvus"
ENGINES = {BROKER, *STORE_SERVERS, VECTORS_SERVER}
GATEWAY_MODULE = "trustgraph_flow.gateway.server"
APP_SERVICES = {name: module for name, module in PROCESSORS.items()} | {"gateway": GATEWAY_MODULE}
STATEFUL = {"librarian", "config"}  # the rest keep their data in the engines and may scale
# Not TG_* settings, passed through on purpose: the LLM's OpenAI-style variables (read by
# the text-completion settings as fallbacks) and the tg-* commands' own variables.
PASS_THROUGH = {
    "text-completion": {"OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY"},
    "gateway": {"TRUSTGRAPH_URL", "TRUSTGRAPH_TOKEN"},
}
HOST = {
    "TG_GATEWAY_TOKEN": "s3cret",
    "TG_PULSAR_TOKEN": "jwt.for.processors",
}  # the operator's .env
INTERPOLATION = re.compile(r"^\$\{(\w+)(?::([?-])(.*))?\}$")


def command(service: dict[str, Any]) -> list[str]:
    cmd = service.get("command")
    assert isinstance(cmd, list) and cmd, f"command must be a list: {cmd!r}"
    return cmd


def script_module(script: str) -> str:
    return SCRIPTS[script].split(":")[0]


def settings_cls(module: str) -> type[ProcessorSettings]:
    if module == GATEWAY_MODULE:
        return GatewaySettings
    cls: type[ProcessorSettings] = importlib.import_module(module).proc.settings_cls
    return cls


def resolve(value: object, host: dict[str, str]) -> str | None:
    """A compose environment value as the container sees it (None: left unset)."""
    if value is None:  # `VAR:` with no value: the host's value, else unset
        return None
    text = str(value)
    found = INTERPOLATION.match(text)
    if not found:
        assert "$" not in text, f"unexpected interpolation in {text!r}"
        return text
    name, op, arg = found.groups()
    if name in host:
        return host[name]
    if op == "?":
        raise LookupError(arg)
    return arg if op == "-" else ""


def container_env(name: str, host: dict[str, str]) -> dict[str, str]:
    env = {k: resolve(v, host) for k, v in SERVICES[name].get("environment", {}).items()}
    return {k: v for k, v in env.items() if v is not None}


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No TG_*/OPENAI_*/TRUSTGRAPH_* variables from the machine running the tests."""
    import os

    for key in list(os.environ):
        if key.startswith(("TG_", "OPENAI_", "TRUSTGRAPH_")):
            monkeypatch.delenv(key)
    return monkeypatch


def test_one_service_per_processor_and_the_gateway() -> None:
    assert set(SERVICES) == set(APP_SERVICES) | ENGINES
    modules = [script_module(command(SERVICES[name])[0]) for name in APP_SERVICES]
    assert sorted(modules) == sorted(APP_SERVICES.values())  # each runs once


@pytest.mark.parametrize("name", sorted(APP_SERVICES))
def test_command_is_the_processors_console_script(name: str) -> None:
    cmd = command(SERVICES[name])
    assert cmd[0] in SCRIPTS, f"{name}: {cmd[0]} is not in [project.scripts]"
    assert len(cmd) == 1, "configured by environment only, no flags"
    assert "entrypoint" not in SERVICES[name]
    module, function = SCRIPTS[cmd[0]].split(":")
    assert module == APP_SERVICES[name]
    assert callable(getattr(importlib.import_module(module), function))


@pytest.mark.parametrize("name", sorted(APP_SERVICES))
def test_environment_is_settings_fields_or_documented_pass_through(
    name: str, clean_env: pytest.MonkeyPatch
) -> None:
    cls = settings_cls(APP_SERVICES[name])
    fields = {"TG_" + field.upper() for field in cls.model_fields}
    env = SERVICES[name].get("environment", {})
    for key in env:
        if key.startswith("TG_"):
            assert key in fields, f"{name}: {key} is no field of {cls.__name__}"
        else:
            assert key in PASS_THROUGH.get(name, set()), f"{name}: undocumented {key}"
    for key, value in container_env(name, HOST).items():
        clean_env.setenv(key, value)
    settings = cls(_cli_parse_args=[])  # the values validate as the container would see them
    assert settings.pulsar_url == "pulsar://pulsar:6650"
    assert settings.pulsar_token == "jwt.for.processors"


def test_openai_variables_are_passed_through_not_defaulted() -> None:
    # `${OPENAI_MODEL:-}` would set an empty model, and an empty TG_LLM_* would beat OPENAI_*.
    env = SERVICES["text-completion"]["environment"]
    for key in PASS_THROUGH["text-completion"] | {k for k in env if k.startswith("TG_LLM_")}:
        assert env[key] is None, f"{key} must be a bare pass-through (no value)"


def test_every_service_uses_the_one_broker() -> None:
    urls = {SERVICES[name]["environment"]["TG_PULSAR_URL"] for name in APP_SERVICES}
    assert urls == {"pulsar://pulsar:6650"}
    pulsar = SERVICES[BROKER]
    assert re.fullmatch(r"apachepulsar/pulsar:[34]\.\d+\.\d+", pulsar["image"])
    script = pulsar["command"][-1].split()
    assert pulsar["command"][:2] == ["sh", "-c"] and "bin/pulsar" in script
    assert script[script.index("bin/pulsar") + 1] == "standalone"
    advertised = script.index("--advertised-address") + 1
    assert script[advertised] == pulsar["hostname"] == BROKER
    assert "pulsar-admin" in " ".join(pulsar["healthcheck"]["test"])
    for name in APP_SERVICES:
        assert SERVICES[name]["depends_on"][BROKER] == {"condition": "service_healthy"}


def test_the_broker_requires_a_token_and_every_client_has_it() -> None:
    """D9: token authentication on at the broker; compose refuses to start without the key."""
    env = SERVICES[BROKER]["environment"]
    script = SERVICES[BROKER]["command"][-1]
    for conf in ("conf/standalone.conf", "conf/client.conf"):  # applied before the broker starts
        assert f"bin/apply-config-from-env.py {conf}" in script
    assert env["authenticationEnabled"] == "true"
    assert env["authenticationProviders"].endswith("AuthenticationProviderToken")
    assert env["PULSAR_PREFIX_tokenSecretKey"].startswith("data:;base64,${TG_PULSAR_SECRET_KEY:?")
    assert (
        env["authParams"]
        == env["brokerClientAuthenticationParameters"]
        == "token:${TG_PULSAR_TOKEN:?set TG_PULSAR_TOKEN}"
    )
    for name in APP_SERVICES:
        assert SERVICES[name]["environment"]["TG_PULSAR_TOKEN"].startswith("${TG_PULSAR_TOKEN:?")
        with pytest.raises(LookupError):
            container_env(name, {"TG_GATEWAY_TOKEN": "s3cret"})


def test_stop_leaves_time_to_drain() -> None:
    drain = ProcessorSettings.model_fields["drain_timeout"].default
    for name in APP_SERVICES:
        grace = SERVICES[name]["stop_grace_period"]
        assert SERVICES[name]["init"] is True
        assert grace.endswith("s") and float(grace[:-1]) > drain


def test_the_store_and_the_vectors_use_their_servers(clean_env: pytest.MonkeyPatch) -> None:
    """TG_STORE_URI names the three store servers (sharded) and TG_VECTORS_URI Milvus, each on
    the port it listens on, validated through the processors' own settings."""
    store_timeout = settings_cls(APP_SERVICES["store"]).model_fields["sparql_timeout"].default
    for server in STORE_SERVERS:
        oxigraph = SERVICES[server]
        assert re.fullmatch(r"ghcr\.io/oxigraph/oxigraph:0\.5\.\d+", oxigraph["image"])
        cmd = oxigraph["command"]
        assert cmd[0] == "serve" and cmd[cmd.index("--bind") + 1] == "0.0.0.0:7878"
        (mount,) = oxigraph["volumes"]
        assert mount.split(":")[1] == cmd[cmd.index("--location") + 1]
        # The server stops a query no sooner than the store stops waiting for it.
        assert float(cmd[cmd.index("--timeout-s") + 1]) >= store_timeout
        assert oxigraph["hostname"] == server
    milvus = SERVICES[VECTORS_SERVER]
    assert re.fullmatch(r"milvusdb/milvus:v2\.\d+\.\d+", milvus["image"])
    assert milvus["command"] == ["milvus", "run", "standalone"]
    assert milvus["environment"]["ETCD_USE_EMBED"] == "true"  # standalone needs no etcd/MinIO
    assert milvus["environment"]["COMMON_STORAGETYPE"] == "local"
    assert "9091/healthz" in " ".join(milvus["healthcheck"]["test"])
    store_env, vectors_env = container_env("store", HOST), container_env("vectors", HOST)
    shards = parse_shards(store_env["TG_STORE_URI"])
    assert [url for _, url in shards] == [f"http://{s}:7878" for s in STORE_SERVERS]
    assert len({name for name, _ in shards}) == len(STORE_SERVERS)
    for server in STORE_SERVERS:
        assert SERVICES["store"]["depends_on"][server] == {"condition": "service_started"}
    assert vectors_env["TG_VECTORS_URI"] == f"http://{VECTORS_SERVER}:19530"
    assert SERVICES[VECTORS_SERVER]["hostname"] == VECTORS_SERVER
    assert SERVICES["vectors"]["depends_on"][VECTORS_SERVER] == {"condition": "service_healthy"}
    for name, key, env in (
        ("store", "TG_STORE_URI", store_env),
        ("vectors", "TG_VECTORS_URI", vectors_env),
    ):
        assert "TG_DATA_DIR" not in env and not SERVICES[name].get("volumes")
        for k, v in env.items():
            clean_env.setenv(k, v)
        settings = settings_cls(APP_SERVICES[name])(_cli_parse_args=[])
        assert getattr(settings, key.removeprefix("TG_").lower()) == env[key]
        if name == "store":
            assert isinstance(settings, StoreSettings) and settings.sharded


def test_every_engine_owns_one_named_volume_and_restarts() -> None:
    owners = {}
    for name in ENGINES:
        (mount,) = SERVICES[name]["volumes"]
        volume = mount.split(":")[0]
        assert volume in COMPOSE["volumes"] and volume not in owners
        owners[volume] = name
        assert SERVICES[name]["restart"] == "unless-stopped"
        assert "build" not in SERVICES[name]  # an engine's own image, pinned
        assert not SERVICES[name].get("ports"), "only the gateway is published"


def test_stateful_processors_own_one_named_volume_each() -> None:
    owners: dict[str, str] = {}
    for name in APP_SERVICES:
        mounts = SERVICES[name].get("volumes", [])
        if name not in STATEFUL:
            assert not mounts, f"{name} is stateless and shares nothing but the broker"
            continue
        (mount,) = mounts
        volume, target = mount.split(":")
        assert target == SERVICES[name]["environment"]["TG_DATA_DIR"]
        assert volume in COMPOSE["volumes"] and volume not in owners
        owners[volume] = name
    assert sorted(owners.values()) == sorted(STATEFUL)
    engine_volumes = {SERVICES[e]["volumes"][0].split(":")[0] for e in ENGINES}
    assert set(COMPOSE["volumes"]) == set(owners) | engine_volumes  # none left unused


def test_gateway_listens_on_every_interface_only_with_a_token(
    clean_env: pytest.MonkeyPatch,
) -> None:
    gateway = SERVICES["gateway"]
    assert gateway["ports"] == ["${TG_GATEWAY_PORT:-8088}:8088"]
    with pytest.raises(LookupError):  # compose refuses to start without the token
        container_env("gateway", {"TG_PULSAR_TOKEN": "jwt.for.processors"})
    for key, value in container_env("gateway", HOST).items():
        clean_env.setenv(key, value)
    settings = GatewaySettings(_cli_parse_args=[])
    token = effective_token(settings)
    assert (settings.port, token, bind_host(settings, token)) == (8088, "s3cret", "0.0.0.0")
    assert gateway["environment"]["TRUSTGRAPH_TOKEN"].startswith("${TG_GATEWAY_TOKEN:?")
    health = " ".join(gateway["healthcheck"]["test"])
    assert "/api/v1/health" in health and "8088" in health


def test_dockerfile_installs_the_project_without_tests() -> None:
    assert re.search(r"^FROM python:3\.11-slim$", DOCKERFILE, re.M)
    copied = re.findall(r"^COPY (.+) \S+$", DOCKERFILE, re.M)
    sources = {src for line in copied for src in line.split()}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    needed = {"pyproject.toml", project["project"]["readme"]}
    needed |= {p.rstrip("*") for p in project["tool"]["setuptools"]["packages"]["find"]["include"]}
    assert needed <= sources, f"the build needs {sorted(needed - sources)}"
    assert all((ROOT / src).exists() for src in sources)
    assert re.search(r"^RUN pip install /tmp/src\b", DOCKERFILE, re.M)
    assert not any(src.startswith(("tests", "bench", ".")) for src in sources)
    assert {"tests", ".venv", ".git"} <= set(DOCKERIGNORE)
    users = re.findall(r"^USER (\S+)$", DOCKERFILE, re.M)
    assert users and users[-1] not in ("root", "0")
    image_env = set(re.findall(r"\b(TG_\w+)=", DOCKERFILE))
    assert image_env and image_env <= {"TG_" + f.upper() for f in ProcessorSettings.model_fields}


def test_image_carries_the_sample_corpus() -> None:
    # The demo loads samples/ through the gateway; in compose it runs inside the gateway
    # container (docker compose exec gateway tg-load-document /app/samples/…).
    assert re.search(r"^COPY samples \./samples$", DOCKERFILE, re.M)
    assert re.search(r"^WORKDIR /app$", DOCKERFILE, re.M)
    assert "samples" not in DOCKERIGNORE
    assert (ROOT / "samples" / "world-facts.pdf").exists()


def entrypoint_script() -> str:
    """The entrypoint as the Dockerfile's ``printf`` writes it."""
    found = re.search(
        r"^RUN printf '([^']*)' \\\n\s*> /usr/local/bin/tg-entrypoint", DOCKERFILE, re.M
    )
    assert found, "the Dockerfile writes /usr/local/bin/tg-entrypoint with printf"
    done = subprocess.run(["printf", found.group(1)], capture_output=True, text=True, check=True)
    return done.stdout


def test_entrypoint_names_each_replica_and_clears_a_stale_ready_file(tmp_path: Path) -> None:
    assert 'ENTRYPOINT ["/usr/local/bin/tg-entrypoint"]' in DOCKERFILE
    script = tmp_path / "tg-entrypoint"
    script.write_text(entrypoint_script())
    ready = tmp_path / "ready"
    ready.touch()
    show = ["sh", "-c", 'echo "$TG_INSTANCE"; test -e "$TG_READY_FILE" && echo stale || true']
    env = {"PATH": "/usr/bin:/bin", "TG_READY_FILE": str(ready)}
    out = subprocess.run(["sh", str(script), *show], env=env, capture_output=True, text=True)
    node = subprocess.run(["uname", "-n"], capture_output=True, text=True).stdout.strip()
    assert out.stdout.split() == [node]
    out = subprocess.run(
        ["sh", str(script), *show], env=env | {"TG_INSTANCE": "r2"}, capture_output=True, text=True
    )
    assert out.stdout.split() == ["r2"]
