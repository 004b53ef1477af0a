"""The bench's documents: five written for it (a Markdown history, a hard-wrapped memoir,
visitors' notes on an observatory, notes from a tour, a PDF guide drawn at run time) and public documents a
Debian system installs (licences in /usr/share/common-licenses, base-passwd's
users-and-groups guide), found at run time and never copied into the project. A missing one
is named and its questions are left out. Each development set's documents
(bench/answers/dev_questions.py, dev19_questions.py, near21_questions.py, recall22_questions.py) go into a collection of their own."""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

from bench.answers.dev19_questions import DEV19_COLLECTION, DEV19_DOCS
from bench.answers.dev_questions import DEV_COLLECTION, DEV_DOCS
from bench.answers.near21_questions import NEAR21_COLLECTION, NEAR21_DOCS
from bench.answers.recall22_questions import RECALL22_COLLECTION, RECALL22_DOCS
from bench.answers.skarra import write_pdf

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Doc:
    key: str  # also the title it is loaded with, so a trace's sources name it
    path: Path
    origin: str  # "written" or the Debian package that installs it
    collection: str = "bench-answers"


WRITTEN = {
    "marrowby": HERE / "marrowby.md",
    "quist": HERE / "quist.txt",
    "hollin": HERE / "hollin.txt",
    "tour": HERE / "tour.txt",
}
DEBIAN = {
    "gpl-3": (Path("/usr/share/common-licenses/GPL-3"), "base-files"),
    "apache-2.0": (Path("/usr/share/common-licenses/Apache-2.0"), "base-files"),
    "mpl-2.0": (Path("/usr/share/common-licenses/MPL-2.0"), "base-files"),
    "bsd": (Path("/usr/share/common-licenses/BSD"), "base-files"),
    "artistic": (Path("/usr/share/common-licenses/Artistic"), "base-files"),
    "users-and-groups": (
        Path("/usr/share/doc/base-passwd/users-and-groups.txt.gz"),
        "base-passwd",
    ),
}


def documents(work: Path) -> tuple[list[Doc], list[str]]:
    """The documents to load (copied or drawn into ``work``), and notes on those missing."""
    docs = [Doc(key, path, "written") for key, path in WRITTEN.items()]
    docs.append(Doc("skarra", write_pdf(work / "skarra.pdf"), "written"))
    missing: list[str] = []
    for found, collection in (
        (DEBIAN, Doc.collection),
        (DEV_DOCS, DEV_COLLECTION),
        (DEV19_DOCS, DEV19_COLLECTION),
        (NEAR21_DOCS, NEAR21_COLLECTION),
        (RECALL22_DOCS, RECALL22_COLLECTION),
    ):
        for key, (path, package) in found.items():
            if not path.exists():
                missing.append(
                    f"{path} is missing (apt-get install {package}): its questions are left out"
                )
                continue
            data = path.read_bytes()
            data = gzip.decompress(data) if path.suffix == ".gz" else data
            # 'GPL-3', 'Apache-2.0': loaded as text/plain; 'manual.pdf.gz' as a PDF
            copy = work / f"{key}{'.pdf' if '.pdf' in path.suffixes else '.txt'}"
            copy.write_bytes(data)
            docs.append(Doc(key, copy, package, collection))
    return docs, missing
