"""Our provenance against the reference's (trustgraph-base 2.11.1), role by role, type by type
and predicate by predicate, and the table in docs/conformance.md that says why each
difference left is there (tests/integration/test_reference_conformance.py).

A *shape* is, per role: the URIs it is given (the session id, UUIDs and the document id
written ``{id}``, ``{uuid}``, ``{doc}``), its ``rdf:type``s, and per predicate the set of
object forms: ``→role`` for a minted entity, an IRI given as input, a literal as
``"value"^^datatype`` (``plain`` without one), a triple term as ``<<s p o>>``. Activities and
agents the builders mint are named from the entity they made (``extraction/chunk.activity``,
``….agent``). A difference is a key such as ``predicate graph-rag/focus tg:llmModel``.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

from tests.support.conformance_inputs import DOC, INPUTS, SESSION
from trustgraph_base.rdf.terms import (
    IriTerm,
    LiteralTerm,
    QuotedTriple,
    Term,
    Triple,
    TripleTerm,
)

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "docs" / "conformance.md"
SCRIPT = Path(__file__).with_name("reference_build.py")
J = dict[str, Any]
SHORT = {
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#": "rdf:",
    "http://www.w3.org/2000/01/rdf-schema#": "rdfs:",
    "http://www.w3.org/2001/XMLSchema#": "xsd:",
    "http://www.w3.org/ns/prov#": "prov:",
    "http://purl.org/dc/elements/1.1/": "dc:",
    "https://trustgraph.ai/ns/": "tg:",
}
CELL = re.compile(r"(?<!\\)\|")  # a table cell's bar; "\|" is a bar in a cell
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
GENERATED_BY = "http://www.w3.org/ns/prov#wasGeneratedBy"
ASSOCIATED = "http://www.w3.org/ns/prov#wasAssociatedWith"
THOUGHT = "https://trustgraph.ai/ns/thought"
PROMPT = "https://trustgraph.ai/ns/prompt"


def reference(python: Path) -> tuple[dict[str, str], list[list[J]], list[list[J]]]:
    """The reference's roles, trace triples and vocabulary bootstrap, built in its own venv."""
    done = subprocess.run(
        [str(python), str(SCRIPT)],
        input=json.dumps(INPUTS),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    out = json.loads(done.stdout)
    return out["roles"], out["triples"], out["vocabulary"]


def as_json(term: Term) -> J:
    """Our term in the form reference_build.py prints."""
    if isinstance(term, IriTerm):
        return {"iri": term.i}
    if isinstance(term, LiteralTerm):
        return {"v": term.v, "dt": term.dt}
    if isinstance(term, TripleTerm):
        return {"triple": [as_json(term.tr.s), as_json(term.tr.p), as_json(term.tr.o)]}
    raise ValueError(f"unexpected term {term!r}")


def of_json(term: J) -> Term:
    """A term reference_build.py printed, as ours."""
    if "iri" in term:
        return IriTerm(i=term["iri"])
    if "triple" in term:
        s, p, o = (of_json(t) for t in term["triple"])
        return TripleTerm(tr=QuotedTriple(s=s, p=p, o=o))
    return LiteralTerm(v=term["v"], dt=term.get("dt"))


def reference_agent_traces(python: Path, graph: str) -> tuple[dict[str, str], list[Triple]]:
    """The agent traces tests/support/reference_agent.py builds with the reference's own
    builders (in its venv): {name: session URI}, and their triples in ``graph``."""
    done = subprocess.run(
        [str(python), str(SCRIPT.with_name("reference_agent.py"))],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    out = json.loads(done.stdout)
    triples = [
        Triple(s=of_json(s), p=of_json(p), o=of_json(o), g=graph) for s, p, o in out["triples"]
    ]
    return out["traces"], triples


def ours_json(triples: list[Triple]) -> list[list[J]]:
    return [[as_json(t.s), as_json(t.p), as_json(t.o)] for t in triples]


def short(iri: str) -> str:
    for long, prefix in SHORT.items():
        if iri.startswith(long):
            return prefix + iri[len(long) :]
    return iri


def pattern(uri: str) -> str:
    return UUID.sub("{uuid}", uri.replace(SESSION, "{id}").replace(DOC, "{doc}"))


def _name_minted(roles: dict[str, str], triples: list[list[J]]) -> dict[str, str]:
    """Roles for what the builders minted on their own: the activity that generated a role's
    entity, the agent associated with that activity, an agent's thought sub-entity, the
    prompt an LLM step was made from."""
    named = dict(roles)
    links = ((GENERATED_BY, ".activity"), (ASSOCIATED, ".agent"), (THOUGHT, ""), (PROMPT, ""))
    for link, suffix in links:
        for s, p, o in triples:
            subject, target = s.get("iri"), o.get("iri")
            if p["iri"] == link and subject in named and target and target not in named:
                family = named[subject].split("/", 1)[0]
                fixed = "agent/thought" if link == THOUGHT else family + "/prompt"
                named[target] = named[subject] + suffix if suffix else fixed
    return named


def form(term: J, named: dict[str, str], family: str) -> str:
    """An object's form; an IRI is named by its role within the subject's own trace (or
    document), so a chunk a DocumentRAG trace selects is the input it was given."""
    if "iri" in term:
        iri = term["iri"]
        role = named.get(iri) or named.get(iri.removesuffix("/document"), "") + "/document"
        if role.split("/", 1)[0] == family:
            return "→" + role
        return pattern(iri)
    if "triple" in term:
        return "<<" + " ".join(form(t, named, family) for t in term["triple"]) + ">>"
    dt = short(term["dt"]) if term.get("dt") else "plain"
    return f'"{pattern(term["v"])}"^^{dt}'


def shape(roles: dict[str, str], triples: list[list[J]]) -> dict[str, J]:
    """Per role: its URI patterns, types, and the object forms of each predicate."""
    named = _name_minted(roles, triples)
    out: dict[str, J] = defaultdict(
        lambda: {"uris": set(), "types": set(), "preds": defaultdict(set)}
    )
    for uri, role in named.items():
        out[role]["uris"].add(pattern(uri))
    for s, p, o in triples:
        if s.get("iri") not in named:
            raise AssertionError(f"a triple on a subject no role names: {s}")
        role = named[s["iri"]]
        if p["iri"] == RDF_TYPE:
            out[role]["types"].add(short(o["iri"]))
        else:
            out[role]["preds"][short(p["iri"])].add(form(o, named, role.split("/", 1)[0]))
    return dict(out)


def differences(ours: dict[str, J], ref: dict[str, J]) -> dict[str, tuple[str, str]]:
    """Each difference's key, with what ours and the reference have there."""
    found: dict[str, tuple[str, str]] = {}
    for role in sorted(ours.keys() | ref.keys()):
        if role not in ref or role not in ours:
            found[f"role {role}"] = (_show(ours.get(role)), _show(ref.get(role)))
            continue
        a, b = ours[role], ref[role]
        if a["uris"] != b["uris"]:
            found[f"uri {role}"] = (_join(a["uris"]), _join(b["uris"]))
        for cls in sorted(a["types"] ^ b["types"]):
            found[f"type {role} {cls}"] = (
                ("a " + cls, "—") if cls in a["types"] else ("—", "a " + cls)
            )
        for pred in sorted(a["preds"].keys() | b["preds"].keys()):
            x, y = a["preds"].get(pred, set()), b["preds"].get(pred, set())
            if x != y:
                found[f"predicate {role} {pred}"] = (_join(x) or "—", _join(y) or "—")
    return found


def _show(entry: J | None) -> str:
    if entry is None:
        return "—"
    return _join(entry["types"]) + "; " + _join(set(entry["preds"]))


def _join(values: set[str]) -> str:
    return ", ".join(sorted(values))


def vocabulary_difference(vocabulary: list[list[J]]) -> dict[str, tuple[str, str]]:
    """The reference's bootstrap of labels for PROV-O and its own classes and predicates,
    written once per collection, by the graph it goes to (the default graph: no ``g``); ours
    writes none."""
    out: dict[str, tuple[str, str]] = {}
    graphs: set[str] = {str(entry[3] or "") for entry in vocabulary}
    for graph in sorted(graphs):
        labelled = {short(s["iri"]) for s, _, _, g in vocabulary if str(g or "") == graph}
        where = f"in {graph}" if graph else "in the default graph"
        out[f"vocabulary rdfs:label bootstrap {where}"] = ("—", f"{len(labelled)} labels")
    return out


def documented() -> dict[str, str]:
    """docs/conformance.md's table: each difference's key and the column that decides it."""
    rows: dict[str, str] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip().replace("\\|", "|") for c in CELL.split(line.strip().strip("|"))]
        if len(cells) == 4 and cells[0].startswith("`") and cells[0].endswith("`"):
            key = cells[0].strip("`")
            if key in rows:
                raise AssertionError(f"docs/conformance.md lists {key!r} twice")
            rows[key] = cells[3]
    return rows
