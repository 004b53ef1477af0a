"""Our provenance against the reference's builders (trustgraph-base 2.11.1, installed with the
official client in its own venv and run there): every difference left is in
docs/conformance.md's table with what decides it (issue 33 item 3)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support import conformance
from tests.support.conformance_inputs import ours
from tests.support.official import official_bin

SEEDS = Path(os.environ.get("TG_SEEDS_DIR", "/work/shared/seeds"))
SPEC = Path(os.environ.get("TG_SPEC", "/work/shared/SPEC.md"))
DECISION = re.compile(
    r"^(seed (?P<file>[0-9a-z_]+\.txt): «(?P<quote>[^»]+)»"
    r"|SPEC\.md: «(?P<spec>[^»]+)»"
    r"|ours only: .{20,})$"
)  # no longer "kept (ours depends)" or "to adopt": every such row is adopted (docs/conformance.md)


@pytest.fixture(scope="module")
def found() -> dict[str, tuple[str, str]]:
    """Each difference between our triples and the reference's for the same inputs."""
    python = official_bin() / "python"
    ref_roles, ref_triples, vocabulary = conformance.reference(python)
    roles, triples = ours()
    mine = conformance.shape(roles, conformance.ours_json(triples))
    theirs = conformance.shape(ref_roles, ref_triples)
    assert mine.keys() & theirs.keys() >= {
        "graph-rag/question",
        "graph-rag/focus-edge",
        "document-rag/exploration",
        "agent/analysis",
        "agent/observation",
        "extraction/subgraph.activity.agent",
    }, "the two sides' roles do not line up: the comparison would compare nothing"
    return conformance.differences(mine, theirs) | conformance.vocabulary_difference(vocabulary)


def test_every_difference_is_documented(found: dict[str, tuple[str, str]]) -> None:
    table = conformance.documented()
    missing = sorted(set(found) - set(table))
    assert not missing, "differences from the reference not in docs/conformance.md:\n" + "\n".join(
        f"| `{k}` | {found[k][0]} | {found[k][1]} | ? |" for k in missing
    )


def test_every_documented_difference_is_there(found: dict[str, tuple[str, str]]) -> None:
    gone = sorted(set(conformance.documented()) - set(found))
    assert not gone, f"docs/conformance.md lists differences that are gone: {gone}"


def test_each_difference_says_what_decides_it() -> None:
    table = conformance.documented()
    assert len(table) > 40  # the table was read (48 rows)
    undecided = {k: v for k, v in table.items() if not DECISION.match(v)}
    assert not undecided, f"rows decided by no seed or SPEC.md quote, nor ours only: {undecided}"


def test_seed_quotes_are_in_the_seeds() -> None:
    if not SEEDS.is_dir():
        pytest.skip(f"the seeds are not at {SEEDS} (TG_SEEDS_DIR)")
    wrong = []
    for key, decision in conformance.documented().items():
        m = DECISION.match(decision)
        if m and m["file"]:
            seed = " ".join((SEEDS / m["file"]).read_text(encoding="utf-8").split())
            if " ".join(m["quote"].split()) not in seed:
                wrong.append(f"{key}: {m['quote']!r} is not in {m['file']}")
    assert not wrong, "\n".join(wrong)


def test_spec_quotes_are_in_spec() -> None:
    if not SPEC.is_file():
        pytest.skip(f"SPEC.md is not at {SPEC} (TG_SPEC)")
    spec = " ".join(SPEC.read_text(encoding="utf-8").split())
    quoted = [m["spec"] for d in conformance.documented().values() if (m := DECISION.match(d))]
    wrong = [q for q in quoted if q and " ".join(q.split()) not in spec]
    assert any(quoted) and not wrong, f"not in {SPEC}: {wrong}"


def test_the_comparison_sees_a_difference_it_should() -> None:
    """The comparison itself: a question typed as the reference types it differs from ours."""
    roles, triples = ours()
    mine = conformance.shape(roles, conformance.ours_json(triples))
    changed = {role: {**entry, "types": set(entry["types"])} for role, entry in mine.items()}
    changed["agent/question"]["types"] = {"prov:Entity", "tg:Question", "tg:AgentQuestion"}
    assert set(conformance.differences(mine, changed)) == {
        "type agent/question prov:Activity",
        "type agent/question prov:Entity",
    }
    assert conformance.differences(mine, mine) == {}
