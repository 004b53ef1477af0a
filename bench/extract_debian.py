"""The offline extractor on three documents a new user might load (issue 29), chunked as
ingest chunks them, in process: chunks, edges and time per document, and with ``--edges``
every edge with the sentence it was read from, to judge one by one (clean / weak / junk:
docs/performance.md, "Extraction on real documents").

    python -m bench.extract_debian [--edges] [--held-out | --set NAME]

``--held-out`` reads, instead, documents nobody looked at while the extractor's rules were
written (session 17: the libpng and man-db manuals), to check that what they drop there is junk
too. ``--set`` names a pair by the session that chose it: ``dev18`` (session 18's development
pair, judged edge by edge while its rules were written), ``held-out18`` (its held-out pair,
whose totals alone were looked at, at the end; session 19 studied it with dev18) and
``held-out19`` (session 19's held-out pair: git-subtree's manual, an AsciiDoc page of options
and examples, and Node.js's governance, a Markdown text; looked at only at the end) and
``held-out19b`` (a second pair, chosen once held-out19 had been studied: valgrind's FAQ and
the X Shape extension's protocol spec) and ``held-out20`` (session 19's third, chosen once the
lexicon's rules were written, to judge them on: Debian's Python policy and fontconfig's user
guide). ``recall20`` (session 20: the READMEs of GNU gettext, grep, bc and gzip, plain prose
whose facts were counted by hand to measure recall) and ``recall20b`` (its held-out trio:
patch's, mawk's and GMP's READMEs, counted only at the end).

Each document's time is wall and CPU; the lexicon's table (``llm/lexicon``) loads once, before.
"""

from __future__ import annotations

import argparse
import gzip
import io
import time
from pathlib import Path

from trustgraph_flow.chunker import split
from trustgraph_flow.decoding import decode_pdf
from trustgraph_flow.llm.extract import extract_edges
from trustgraph_flow.llm.lexicon import parts_of_speech

DOCUMENTS = {
    "bzip2 manual": Path("/usr/share/doc/bzip2/manual.pdf.gz"),
    "GFDL-1.3": Path("/usr/share/common-licenses/GFDL-1.3"),
    "sed FAQ": Path("/usr/share/doc/sed/sedfaq.txt.gz"),
}
HELD_OUT = {
    "libpng manual": Path("/usr/share/doc/libpng16-16/libpng-manual.txt.gz"),
    "man-db manual": Path("/usr/share/doc/man-db/man-db-manual.txt.gz"),
}
DEV18 = {
    "libjpeg structure": Path("/usr/share/doc/libjpeg-dev/structure.txt.gz"),
    "dpkg triggers": Path("/usr/share/doc/dpkg/spec/triggers.txt"),
}
HELD_OUT18 = {
    "Apache-2.0": Path("/usr/share/common-licenses/Apache-2.0"),
    "XDMCP": Path("/usr/share/doc/libxdmcp-dev/xdmcp.txt.gz"),
}
HELD_OUT19 = {
    "git-subtree": Path("/usr/share/doc/git/contrib/subtree/git-subtree.txt"),
    "Node.js governance": Path("/usr/share/doc/nodejs/GOVERNANCE.md"),
}
HELD_OUT19B = {
    "valgrind FAQ": Path("/usr/share/doc/valgrind/FAQ.txt.gz"),
    "X Shape extension": Path("/usr/share/doc/xextproto/shape.txt.gz"),
}
HELD_OUT20 = {
    "Debian Python policy": Path("/usr/share/doc/python3/python-policy.txt.gz"),
    "fontconfig user guide": Path("/usr/share/doc/fontconfig/fontconfig-user.txt.gz"),
}
RECALL20 = {
    "gettext README": Path("/usr/share/doc/gettext/README"),
    "grep README": Path("/usr/share/doc/grep/README"),
    "bc README": Path("/usr/share/doc/bc/README"),
    "gzip README": Path("/usr/share/doc/gzip/README.gz"),
}
RECALL20B = {
    "patch README": Path("/usr/share/doc/patch/README"),
    "mawk README": Path("/usr/share/doc/mawk/README"),
    "GMP README": Path("/usr/share/doc/libgmp-dev/README"),
}
SETS = {
    "studied": DOCUMENTS,
    "held-out": HELD_OUT,
    "dev18": DEV18,
    "held-out18": HELD_OUT18,
    "held-out19": HELD_OUT19,
    "held-out19b": HELD_OUT19B,
    "held-out20": HELD_OUT20,
    "recall20": RECALL20,
    "recall20b": RECALL20B,
}
CHUNK, OVERLAP = 1000, 100  # the chunker's defaults


def pages(path: Path) -> list[str]:
    data = path.read_bytes()
    data = gzip.decompress(data) if path.suffix == ".gz" else data
    if ".pdf" in path.suffixes:
        return [p.text for p in decode_pdf(io.BytesIO(data))]
    return [data.decode("utf-8", "replace")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--edges", action="store_true", help="print every edge")
    parser.add_argument("--held-out", action="store_true", help="session 17's held-out pair")
    parser.add_argument("--set", choices=sorted(SETS), default="studied", help="a set by name")
    args = parser.parse_args()
    cpu = time.process_time()
    parts_of_speech("pack")  # the lexicon's table loads once a process, before any timing
    print(f"lexicon loaded: {(time.process_time() - cpu) * 1000:.0f} ms CPU")
    for name, path in SETS["held-out" if args.held_out else args.set].items():
        if not path.exists():
            print(f"{name}: {path} is missing, left out")
            continue
        chunks = edges = 0
        start, cpu = time.perf_counter(), time.process_time()
        for page in pages(path):
            for sp in split(page, CHUNK, OVERLAP):
                chunks += 1
                for e in extract_edges(page[sp.offset : sp.offset + sp.length]):
                    edges += 1
                    if args.edges:
                        quote = " ".join(e.quote.split())[:120]
                        print(f"  {chunks:>3} {e.s} | {e.p} | {e.o}    << {quote}")
        ms = (time.perf_counter() - start) * 1000
        cpu_ms = (time.process_time() - cpu) * 1000
        print(f"{name}: {chunks} chunks, {edges} edges, {ms:.0f} ms ({cpu_ms:.0f} ms CPU)")


if __name__ == "__main__":
    main()
