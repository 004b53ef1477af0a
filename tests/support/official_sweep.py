"""Every command of the official TrustGraph client, with arguments it accepts, run once
against a gateway: each must end on its own (work, or say why not), never hang or retry.

    python -m tests.support.official_sweep BIN_DIR URL [WORKDIR [GUARDED_URL ADMIN_TOKEN]]

prints one line per command: its name, whether it works (``works``), exit code, seconds, and
the first line it printed; then how many work.
``tests/integration/test_official_client.py`` runs the same table.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

DOC = "urn:trustgraph:doc:world-facts-718bc1a1"
TRACE = "urn:trustgraph:question:none"
CORE = "sweep-core"

# The reference's core files (msgpack records, as tg-get-kg-core and tg-get-de-core write
# them), made with the official client's own msgpack (our venv does not carry it): a kg core
# of one triple and one entity vector, a de core of one chunk vector (384 numbers: the
# dimension of the default embeddings).
WRITE_CORES = """
import sys, msgpack
meta = {"i": "urn:sweep:core", "m": "urn:sweep:core", "c": "default"}
term = lambda i: {"t": "i", "i": i}
vector = [1.0] + [0.0] * 383
kg = [
    ["t", {"m": meta, "t": [{"s": term("urn:sweep:a"), "p": term("urn:sweep:p"), "o": term("urn:sweep:b")}]}],
    ["ge", {"m": meta, "e": [{"e": term("urn:sweep:a"), "v": vector}]}],
]
de = [["de", {"m": meta, "c": [{"i": "urn:sweep:core/c1", "v": vector}]}]]
for path, records in ((sys.argv[1], kg), (sys.argv[2], de)):
    with open(path, "wb") as f:
        for r in records:
            f.write(msgpack.packb(r, use_bin_type=True))
"""


def arguments(work: Path) -> dict[str, list[str]]:
    """Arguments for each official command (none: it is run bare)."""
    ttl, note, blob = work / "k.ttl", work / "note.txt", work / "blob.bin"
    ttl.write_text("<urn:sweep:a> <urn:sweep:p> <urn:sweep:b> .\n")
    note.write_text("Sweep note: Zorblat orbits Quuxar.\n")
    blob.write_bytes(b"\x00")
    out = str(work / "out")
    return {
        "tg-add-library-document": ["--id", "urn:sweep:note", "-k", "text/plain", str(note)],
        "tg-change-password": ["--new-password", "x", "--current-password", "y"],
        "tg-create-api-key": ["--user-id", "u", "--name", "n"],
        "tg-create-user": ["--username", "u"],
        "tg-create-workspace": ["--workspace-id", "w"],
        # (run last) the collection tg-set-collection described: one that is not is refused
        "tg-delete-collection": ["sweep", "-y"],
        # (run in name order: delete before put) a prompt template deleted is its default again
        "tg-delete-config-item": ["--type", "prompt", "--key", "template.graph-rag-answer"],
        "tg-delete-flow-blueprint": ["-n", "x"],
        "tg-delete-kg-core": ["--id", CORE],
        "tg-delete-mcp-tool": ["--id", "x"],
        "tg-delete-tool": ["--id", "text-completion"],
        "tg-delete-user": ["--user-id", "x"],
        "tg-describe-image": ["-i", str(blob)],
        "tg-disable-user": ["--user-id", "x"],
        "tg-dump-msgpack": ["-i", str(blob)],
        "tg-dump-queues": ["q"],
        "tg-enable-user": ["--user-id", "x"],
        "tg-export-workspace": ["-o", out + ".tar.gz"],
        "tg-export-workspace-config": ["-o", out + ".json"],
        "tg-get-config-item": ["--type", "prompt", "--key", "system"],
        "tg-get-de-core": ["--id", CORE, "-o", out + ".de"],
        "tg-get-document-content": [DOC + "/p1"],
        "tg-get-flow-blueprint": ["-n", "default"],
        "tg-get-kg-core": ["--id", CORE, "-o", out + ".kg"],
        # what tg-export-workspace and tg-export-workspace-config wrote (they run before)
        "tg-import-workspace": ["-i", out + ".tar.gz"],
        "tg-import-workspace-config": ["-i", out + ".json"],
        "tg-invoke-agent": ["-q", "What is the capital of France?"],
        "tg-invoke-decision-scoring": ["--question", "q", "--options", "a"],
        "tg-invoke-document-embeddings": ["Paris"],
        "tg-invoke-document-rag": ["-q", "Where was Marie Curie born?"],
        "tg-invoke-embeddings": ["Paris"],
        "tg-invoke-field-extract": ["--text", "t", "--fields", "f"],
        "tg-invoke-graph-embeddings": ["Paris"],
        "tg-invoke-graph-rag": ["-q", "What is the capital of France?"],
        "tg-invoke-llm": ["You are terse.", "Say hello."],
        "tg-invoke-mcp-tool": ["-n", "x"],
        "tg-invoke-nlp-query": ["-q", "q"],
        "tg-invoke-prompt": [
            *("graph-rag-answer", "facts=Paris is the capital of France."),
            "question=What is the capital of France?",
        ],
        "tg-invoke-reranker": [
            *("-q", "the capital of France"),
            *("Bananas are yellow.", "Paris is the capital of France."),
        ],
        "tg-invoke-row-embeddings": ["q", "-s", "x"],
        "tg-invoke-rows-query": ["-q", "{ x }"],
        "tg-invoke-sparql-query": ["-q", "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"],
        "tg-invoke-structured-query": ["-q", "q"],
        "tg-list-api-keys": ["--user-id", "u"],
        "tg-list-config-items": ["--type", "prompt"],
        "tg-load-doc-embeds": ["-i", str(blob)],
        "tg-load-kg-core": ["--id", CORE],
        "tg-load-knowledge": ["-i", "urn:sweep:k", str(ttl)],
        "tg-load-structured-data": ["-i", str(blob)],
        "tg-load-turtle": ["-i", "urn:sweep:t", str(ttl)],
        "tg-login": ["--username", "u", "--password", "p"],
        "tg-put-config-item": ["--type", "t", "--key", "k", "--value", "v"],
        "tg-put-de-core": ["--id", CORE, "-i", str(work / "de.core")],
        "tg-put-flow-blueprint": ["-n", "x", "-c", "{}"],
        "tg-put-kg-core": ["--id", CORE, "-i", str(work / "kg.core")],
        "tg-query-graph": ["-p", "http://www.w3.org/2000/01/rdf-schema#label"],
        "tg-remove-library-document": ["--id", "urn:sweep:note"],
        "tg-reset-password": ["--user-id", "u"],
        "tg-revoke-api-key": ["--key-id", "x"],
        "tg-save-doc-embeds": ["-o", out + ".msgpack"],
        "tg-set-collection": ["sweep", "-n", "Sweep", "-d", "made by the sweep"],
        "tg-set-mcp-tool": ["--id", "x", "--tool-url", "http://127.0.0.1:9/"],
        "tg-set-prompt": ["--id", "graph-rag-answer", "--prompt", "{{facts}}\n\nQ: {{question}}"],
        "tg-set-token-costs": ["--model", "m", "-i", "1", "-o", "1"],
        "tg-set-tool": [
            *("--id", "facts", "--name", "facts", "--type", "knowledge-query"),
            *("--description", "Facts from the knowledge graph."),
        ],
        "tg-show-explain-trace": [TRACE],
        "tg-show-extraction-provenance": [DOC],
        "tg-start-flow": ["-n", "x", "-i", "y", "-d", "z"],
        "tg-start-library-processing": [
            *("-d", DOC, "--id", "sweep-proc", "--collection", "sweep-processed")
        ],
        "tg-stop-flow": ["-i", "x"],
        "tg-stop-library-processing": ["--id", "sweep-proc"],
        "tg-unload-kg-core": ["--id", CORE],
        "tg-update-user": ["--user-id", "x", "--name", "n"],
        # our twelve processors (it wants the reference's 15), and no Workbench UI here
        "tg-verify-system-status": [
            *("--global-timeout", "10", "--retry-delay", "1", "--min-processors", "12"),
            "--skip-ui",
        ],
        "tg-invoke-cloze": ["-m", "m", "x"],
        "tg-mint-token": ["-w", "w", "--user-context", "u", "--ttl", "1"],
    }


# Commands run in name order, except those that make what others use (first) and those that
# delete it (last).
FIRST = ("tg-put-kg-core", "tg-put-de-core")
LAST = ("tg-delete-kg-core", "tg-delete-mcp-tool", "tg-delete-collection")


def in_order(names: list[str]) -> list[str]:
    rest = [n for n in sorted(names) if n not in FIRST and n not in LAST]
    return [n for n in FIRST if n in names] + rest + [n for n in LAST if n in names]


# Commands that run until interrupted by design (they tap live queues): given a few seconds.
WATCHERS = {"tg-save-doc-embeds", "tg-monitor-prompts"}
WATCH_SECONDS = 5.0


class Outcome(NamedTuple):
    name: str
    code: int | None  # None: it had to be stopped
    seconds: float
    first_line: str
    output: str


def works(o: Outcome) -> bool:
    """Whether the command did what it was asked (the sweep's count of working commands): it
    ended 0 (a watcher: it ran) and said no error, usage or "not found" first."""
    said = o.first_line
    failed = any(w in said for w in ("Exception", "Error", "usage:", "not found"))
    return (o.code == 0 or (o.code is None and o.name in WATCHERS)) and not failed


def run_one(
    bin_dir: Path, name: str, args: list[str], url: str, limit: float, token: str = ""
) -> Outcome:
    env = {**os.environ, "TRUSTGRAPH_URL": url}
    env.pop("TRUSTGRAPH_TOKEN", None)
    env.pop("VIRTUAL_ENV", None)
    if token:
        env["TRUSTGRAPH_TOKEN"] = token
    start = time.monotonic()
    try:
        done = subprocess.run(
            [str(bin_dir / name), *args],
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            env=env,
            timeout=limit,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raw = exc.stdout or b""
        text = raw.decode() if isinstance(raw, bytes) else raw
        head = text.strip().splitlines()
        return Outcome(name, None, time.monotonic() - start, head[0] if head else "", text)
    text = done.stdout + done.stderr
    lines = [ln for ln in text.splitlines() if ln.strip()]
    errors = [ln for ln in lines if "Error" in ln or "Exception" in ln]
    first = (errors or lines or [""])[0]
    return Outcome(name, done.returncode, time.monotonic() - start, first.strip()[:160], text)


# Commands that read Prometheus at the reference's localhost:8888 unless told where: ours is
# the gateway's /api/metrics (docs/gateway.md, "Metrics").
METRICS_READERS = ("tg-show-processor-state", "tg-show-token-rate", "tg-show-flow-state")


# The API key commands (and tg-list-users: the users keys act for) manage keys with the admin
# token, on a gateway with auth on
# (``guarded``: its URL and admin token); on an open gateway they say how to turn auth on.
KEY_COMMANDS = ("tg-create-api-key", "tg-list-api-keys", "tg-list-users", "tg-revoke-api-key")


def sweep(
    bin_dir: Path,
    url: str,
    work: Path,
    limit: float = 60.0,
    guarded: tuple[str, str] | None = None,
) -> list[Outcome]:
    table = arguments(work)
    for name in METRICS_READERS:
        table[name] = [*table.get(name, []), "-m", url.rstrip("/") + "/api/metrics"]
    table["tg-show-token-rate"] += ["-n", "1"]
    made = subprocess.run(
        [str(bin_dir / "python"), "-c", WRITE_CORES, str(work / "kg.core"), str(work / "de.core")],
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0:
        raise RuntimeError(f"the sweep's core files: {made.stderr.strip()[-300:]}")
    outcomes = []
    for name in in_order([p.name for p in bin_dir.glob("tg-*")]):
        where, token = guarded if guarded and name in KEY_COMMANDS else (url, "")
        wait = WATCH_SECONDS if name in WATCHERS else limit
        outcomes.append(run_one(bin_dir, name, table.get(name, []), where, wait, token))
        key = re.search(r"^Key id: (\S+)", outcomes[-1].output, re.MULTILINE)
        if name == "tg-create-api-key" and key:  # the key it made is the one revoked
            table["tg-revoke-api-key"] = ["--key-id", key.group(1)]
    return outcomes


def main() -> None:
    bin_dir, url = Path(sys.argv[1]), sys.argv[2]
    work = Path(sys.argv[3]) if len(sys.argv) > 3 else Path.cwd()
    work.mkdir(parents=True, exist_ok=True)
    guarded = (sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else None
    outcomes = sweep(bin_dir, url, work, guarded=guarded)
    for o in outcomes:
        code = ("watching" if o.name in WATCHERS else "HUNG") if o.code is None else str(o.code)
        verdict = "works" if works(o) else "ends"
        print(f"{o.name}\t{verdict}\t{code}\t{o.seconds:.1f}\t{o.first_line}", flush=True)
    print(f"{sum(works(o) for o in outcomes)} of {len(outcomes)} work", flush=True)


if __name__ == "__main__":
    main()
