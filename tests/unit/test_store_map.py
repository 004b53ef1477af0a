"""The store's rooms and their arrows (docs/design.md, "The store's map") hold in the code.

The map's table is read from the doc; every import of every module under
``trustgraph_flow/store`` is read with ``ast`` (inside functions and ``TYPE_CHECKING`` too:
an arrow is an arrow). An import the table does not allow, an import circle, or a folder
without its row (or a row without its folder) fails.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "trustgraph_flow" / "store"
PACKAGE = "trustgraph_flow.store"
DOC = ROOT / "docs" / "design.md"
TOP = "."  # the room of the store's own top-level modules (the processor's wiring)

Rules = dict[str, set[str]]  # room → the rooms it may import


def read_map(doc: str) -> Rules:
    """The table between the ``store-map`` markers: room → the rooms it may import."""
    begin, end = doc.index("<!-- store-map: begin -->"), doc.index("<!-- store-map: end -->")
    rules: Rules = {}
    for line in doc[begin:end].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        room = cells[0].strip("`").rstrip("/") or TOP
        allowed = {a.strip().strip("`").rstrip("/") for a in cells[2].split(",")}
        rules[room] = allowed - {"—", ""}
    return rules


def modules(root: Path, package: str) -> dict[str, Path]:
    """Dotted name → file of every module under ``root`` (a package named ``package``)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join([package, *parts])] = path
    return found


def imports(path: Path, name: str, known: Iterable[str]) -> set[str]:
    """The modules of ``known`` that the module ``name`` (file ``path``) imports, anywhere in it."""
    known = set(known)
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package, up level - 1
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join([*here, base] if base else here)
            for a in node.names:
                if f"{base}.{a.name}" in known:  # ``from package import module``
                    out.add(f"{base}.{a.name}")
                elif base in known:
                    out.add(base)
    out.discard(name)
    return out


def room_of(module: str, package: str, rooms: Iterable[str], is_package: bool) -> str:
    """The deepest room (a folder of the map) holding ``module`` (a package: its own folder);
    TOP for the package's own modules."""
    parts = module.split(".")[len(package.split(".")) :]
    folders = parts if is_package else parts[:-1]
    rooms = set(rooms)
    for depth in range(len(folders), 0, -1):
        room = "/".join(folders[:depth])
        if room in rooms:
            return room
    return TOP


def check(root: Path, package: str, rules: Rules) -> list[str]:
    """Every way the code under ``root`` breaks the map ``rules``: one line each."""
    found = modules(root, package)
    room_at = {m: room_of(m, package, rules, p.name == "__init__.py") for m, p in found.items()}
    problems = []
    folders = {
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir() and any(p.glob("*.py"))
    }
    for folder in sorted(folders - set(rules)):
        problems.append(f"folder {folder}/ has no row in the map")
    for room in sorted(set(rules) - folders - {TOP}):
        problems.append(f"the map's room {room}/ is not a folder")
    graph = {m: imports(p, m, found) for m, p in found.items()}
    for m, targets in sorted(graph.items()):
        mine = room_at[m]
        for t in sorted(targets):
            theirs = room_at[t]
            if theirs != mine and theirs not in rules.get(mine, set()):
                problems.append(f"{m} ({mine}) imports {t} ({theirs}): not an arrow of the map")
    problems += [f"import circle: {' -> '.join(c)}" for c in circles(graph)]
    return problems


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected group of more than one module (or a self-loop)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan; the store's graph is a few dozen modules deep at most
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append([*sorted(group), sorted(group)[0]])

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def test_the_store_keeps_to_its_map() -> None:
    rules = read_map(DOC.read_text())
    assert {"core", "views", "governance", "backends/embedded", "backends/server"} <= set(rules)
    assert check(STORE, PACKAGE, rules) == []


def test_the_maps_arrows_point_one_way() -> None:
    """No two rooms may import each other, through any chain of rows."""
    rules = read_map(DOC.read_text())
    graph = {room: set(allowed) for room, allowed in rules.items()}
    assert circles(graph) == []


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_check_finds_an_upward_import_a_circle_and_a_missing_room(tmp_path: Path) -> None:
    """The check itself can fail: a view importing a backend, a circle inside a room, an
    unmapped folder and a mapped room with no folder are each reported."""
    pkg = tmp_path / "demo"
    write(
        pkg,
        {
            "__init__.py": "",
            "core/__init__.py": "",
            "core/api.py": "X = 1\n",
            "backends/__init__.py": "",
            "backends/disk.py": "from demo.core.api import X\n",
            "views/__init__.py": "",
            "views/a.py": "from demo.views import b\nfrom demo.backends.disk import X\n",
            "views/b.py": "def f():\n    from demo.views.a import X\n",
            "extra/__init__.py": "",
            "extra/thing.py": "from . import other\n",
            "extra/other.py": "",
        },
    )
    rules = {
        "core": set(),
        "backends": {"core"},
        "views": {"core"},
        "gone": {"core"},
        TOP: {"core", "backends", "views"},
    }
    problems = check(pkg, "demo", rules)
    assert (
        "demo.views.a (views) imports demo.backends.disk (backends): not an arrow of the map"
        in problems
    )
    assert "import circle: demo.views.a -> demo.views.b -> demo.views.a" in problems
    assert "folder extra/ has no row in the map" in problems
    assert "the map's room gone/ is not a folder" in problems
    assert not any("demo.backends.disk (backends) imports" in p for p in problems)
    two_way = {"views": {"backends"}, "backends": {"views"}}
    assert circles(two_way) == [["backends", "views", "backends"]]
