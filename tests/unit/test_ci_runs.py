"""CI's server and sharded runs (``.ci/run``) take the unit tests named ``test_store_*`` and
``test_audit_*``, not the others: a unit test file that opens the suite's store backend must
be named so, or it would run on the embedded store only. Read with ``ast``: what it imports,
and the fixtures its functions ask for."""

from __future__ import annotations

import ast
from pathlib import Path

UNIT = Path(__file__).resolve().parent
CI = UNIT.parents[1] / ".ci" / "run"
# The helpers that open the backend TG_TEST_STORE names (tests/support), by module.
BACKEND_HELPERS = {
    "tests.support.sparql_server": {"store_backend", "shared_store_uri", "store_servers"},
    "tests.support.store": {"written"},
    # Every helper of these opens a store of the suite's backend, or starts a store
    # processor (it reads TG_STORE_URI).
    "tests.support.migration": None,
    "tests.support.launcher": None,
    "tests.support.processors": None,
    "tests.support.rag": None,
    "tests.support.sparql_stack": None,
    "tests.support.stack": None,
    "trustgraph_flow.store.processor": None,
}
BACKEND_FIXTURES = {"make_backend", "store_server"}


def backend_uses(source: str) -> list[str]:
    """What in a test module reaches the suite's store backend."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            for module, names in BACKEND_HELPERS.items():
                if node.module == module:
                    found += [a.name for a in node.names if names is None or a.name in names]
                elif module.startswith(node.module + "."):  # from a.b import c, for a.b.c
                    found += [a.name for a in node.names if module.endswith("." + a.name)]
        elif isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in BACKEND_HELPERS]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found += [a.arg for a in node.args.args if a.arg in BACKEND_FIXTURES]
    return found


def test_the_detector_sees_each_way_in() -> None:
    assert backend_uses("from tests.support.sparql_server import oxigraph_server, store_backend")
    assert backend_uses("from tests.support.store import msg, written") == ["written"]
    assert backend_uses("from tests.support.migration import killed_then_resumed")
    assert backend_uses("from trustgraph_flow.store import processor") == ["processor"]
    assert backend_uses("import trustgraph_flow.store.processor")
    assert backend_uses("async def test_x(make_backend, tmp_path): pass") == ["make_backend"]
    assert backend_uses("from tests.support.store import msg, labels") == []
    assert backend_uses("from tests.support.sparql_server import oxigraph_server") == []


def test_unit_tests_of_the_store_backend_are_named_for_the_server_runs() -> None:
    ci = CI.read_text()
    assert "tests/unit/test_store_*.py tests/unit/test_audit_*.py" in ci  # what the runs take
    misnamed = {
        path.name: uses
        for path in sorted(UNIT.glob("test_*.py"))
        if not path.name.startswith(("test_store_", "test_audit_"))
        and (uses := backend_uses(path.read_text()))
    }
    assert misnamed == {}, "rename these test_store_* (or test_audit_*), or they skip the servers"
