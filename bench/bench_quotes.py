"""A real model's quotes: how many of the sentences SmolLM2 gives for its edges are found in
their chunk (``tg:located``) on documents nobody on the project wrote.

    python -m bench.bench_quotes [--pdf FILE:FIRST-LAST ...]

Runs SmolLM2-135M-Instruct on llama-cpp-python's server and the embedded stack
(``tg-start``) pointed at it, as bench_realmodel does; loads the four samples and a few
pages of the PDF manuals Debian packages ship (default: the prose pages of libtasn1's and
shared-mime-info's manuals, cut out with PDFium, when present), then reads every edge span
(``tg:Span``) through SPARQL and counts the located and unlocated quotes per document. A
quote is located only when it is in its chunk verbatim up to layout (docs/provenance.md):
the figure is the model's, not the locator's. Needs the ``[realmodel]`` extra.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pypdfium2 as pdfium

from bench.bench_realmodel import DOCUMENTS, SAMPLES, run
from bench.summary import summary

MANUALS = [
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf:4-5",
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf:1-2",
]
SPANS = """
PREFIX tg: <https://trustgraph.ai/ns/>
PREFIX prov: <http://www.w3.org/ns/prov#>
SELECT ?span ?chunk ?quote ?located WHERE {
  GRAPH <urn:graph:source> {
    ?span a tg:Span ; prov:wasDerivedFrom ?chunk ; tg:quote ?quote .
    OPTIONAL { ?span tg:located ?located }
  }
}
"""


def cut(spec: str, folder: Path) -> Path | None:
    """Pages FIRST-LAST of a PDF as a file of their own (None when the PDF is absent)."""
    name, _, pages = spec.rpartition(":")
    source = Path(name)
    if not source.exists():
        return None
    first, last = (int(p) for p in pages.split("-"))
    src = pdfium.PdfDocument(source)
    out = pdfium.PdfDocument.new()
    out.import_pages(src, list(range(first - 1, last)))
    path = folder / f"{source.stem}-p{first}-{last}.pdf"
    out.save(path)
    out.close()
    src.close()
    return path


def document_of(chunk: str) -> str:
    """The document a chunk URI belongs to ({doc}/p{n}/c{k} or {doc}/c{k})."""
    parts = chunk.split("/")
    while parts and (parts[-1][:1] in ("p", "c") and parts[-1][1:].isdigit()):
        parts.pop()
    return "/".join(parts)


async def measure(pdfs: list[str]) -> tuple[Counter[str], Counter[str], list[str], float]:
    from tests.support.realmodel import llama_server, real_stack
    from tests.support.recording_proxy import recording_proxy

    with tempfile.TemporaryDirectory(prefix="bench-quotes-") as tmp:
        root = Path(tmp)
        files = [SAMPLES / name for name in DOCUMENTS]
        files += [p for p in (cut(spec, root) for spec in pdfs) if p is not None]
        async with (
            llama_server(root / "server.log") as upstream,
            recording_proxy(upstream) as proxy,
            real_stack(proxy.base_url, root / "stack") as stack,
        ):
            started = time.monotonic()
            for path in files:
                code, _, err, wall = await run("tg-load-document", str(path), env=stack.env)
                if code != 0:
                    raise SystemExit(f"loading {path.name} failed: {err.strip()}")
                print(f"  loaded {path.name} in {wall:.0f} s ({len(proxy.calls)} LLM calls so far)")
            if not proxy.calls:
                raise SystemExit("the model was never asked: the stack did not reach it")
            # the extractor's last spans land just after the load returns
            located: Counter[str] = Counter()
            unlocated: Counter[str] = Counter()
            examples: list[str] = []
            previous, rows = -1, []
            for _ in range(60):
                for _attempt in range(5):  # the store's SPARQL worker may be slow to start
                    code, out, err, _ = await run(
                        "tg-sparql", "--format", "json", SPANS, env=stack.env
                    )
                    if code == 0:
                        break
                    print(f"  tg-sparql: {err.strip()} (again)", flush=True)
                    await asyncio.sleep(10)
                if code != 0:
                    raise SystemExit(f"tg-sparql failed: {err.strip()}")
                rows = json.loads(out)["results"]["bindings"]
                if len(rows) == previous:
                    break
                previous = len(rows)
                await asyncio.sleep(10)
            for row in rows:
                doc = document_of(row["chunk"]["value"])
                if row.get("located", {}).get("value") == "false":
                    unlocated[doc] += 1
                    if len(examples) < 5:
                        examples.append(row["quote"]["value"])
                else:
                    located[doc] += 1
            return located, unlocated, examples, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdf", action="append", help="FILE:FIRST-LAST pages to load too")
    args = parser.parse_args()
    from tests.support.realmodel import missing

    reason = missing()
    if reason:
        print(reason)
        summary("real model quotes", "skipped", "-", reason)
        return
    located, unlocated, examples, wall = asyncio.run(measure(args.pdf or MANUALS))
    print(f"\n{'document':60} {'located':>8} {'unlocated':>10}")
    for doc in sorted(set(located) | set(unlocated)):
        print(f"{doc:60} {located[doc]:>8} {unlocated[doc]:>10}")
    yes, no = sum(located.values()), sum(unlocated.values())
    share = yes / (yes + no) if yes + no else 0.0
    print(f"{'all':60} {yes:>8} {no:>10}   located {share:.0%} ({wall:.0f} s)")
    for quote in examples:
        print(f"  unlocated: {quote[:100]!r}")
    summary("real model quotes located", f"{yes} of {yes + no} ({share:.0%})", "-", "SmolLM2")
    if yes + no == 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
