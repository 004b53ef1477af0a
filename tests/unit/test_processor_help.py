"""Every processor's and the gateway's --help: plain text, help on each option, tg-start's data dir."""

from __future__ import annotations

import tomllib
from importlib import import_module
from pathlib import Path

import pytest

from trustgraph_base.paths import default_data_dir
from trustgraph_base.settings import ProcessorSettings
from trustgraph_flow.launcher.rundir import RunDir

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
PROCESSES = {n: t for n, t in SCRIPTS.items() if n.startswith("tg-proc-") or n == "tg-gateway"}


def entry(name: str) -> tuple[object, type[ProcessorSettings]]:
    module_name, attr = PROCESSES[name].split(":")
    module = import_module(module_name)
    main = getattr(module, attr)
    owner = getattr(module, "proc", None)  # a processor; the gateway has its own main
    if owner is not None:
        return owner.main, owner.settings_cls
    return main, module.GatewaySettings


@pytest.mark.parametrize("name", sorted(PROCESSES))
def test_help_is_plain_with_help_on_every_option(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    main, settings = entry(name)
    with pytest.raises(SystemExit) as done:
        main(["--help"])  # type: ignore[operator]
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "``" not in text and ":class:" not in text  # no RST markup
    assert text.splitlines()[0].startswith("usage: ")
    flat = "".join(text.split())  # argparse wraps lines (also at hyphens)
    for field, info in settings.model_fields.items():
        assert info.description, f"{name}: --{field.replace('_', '-')} has no help"
        assert "".join(info.description.split()) in flat
    assert "TG_<NAME>" in flat  # how the environment is read


def test_the_default_data_dir_is_tg_starts() -> None:
    assert ProcessorSettings().data_dir == str(RunDir(default_data_dir()).data)


def test_the_license_is_an_spdx_string_that_setuptools_takes_without_warning() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"  # a TOML table warns on every install
    assert "setuptools>=77" in project["build-system"]["requires"]  # the first to take it
