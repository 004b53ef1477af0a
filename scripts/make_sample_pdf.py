"""Generate ``samples/world-facts.pdf``: a small multi-page PDF for the ingestion pipeline.

Run from the repository root: ``python scripts/make_sample_pdf.py``. The text is written
for this project (public domain, CC0); one fact per simple sentence, so the offline
extractor's patterns find it.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF

PAGES: list[tuple[str, list[str]]] = [
    (
        "Capitals of the world",
        [
            "Paris is the capital of France.",
            "Tokyo is the capital of Japan.",
            "Ottawa is the capital of Canada.",
            "Canberra is the capital of Australia.",
            "Cairo is the capital of Egypt.",
        ],
    ),
    (
        "Rivers and mountains",
        [
            "The Nile flows through Cairo.",
            "The Danube flows through Vienna.",
            "Mount Fuji is the highest mountain of Japan.",
            "Mont Blanc is the highest mountain of France.",
        ],
    ),
    (
        "People and places",
        [
            "Victor Hugo was born in Besançon.",
            "Victor Hugo wrote Les Misérables.",
            "Marie Curie was born in Warsaw.",
            "Wolfgang Amadeus Mozart was born in Salzburg.",
        ],
    ),
]


def build(out: Path) -> None:
    """Write one page per section; fixed creation date so the file is reproducible."""
    pdf = FPDF()
    pdf.set_creation_date(datetime(2024, 1, 1, tzinfo=UTC))
    pdf.set_title("World facts")
    pdf.set_author("explaingraph sample corpus")
    for heading, sentences in PAGES:
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 16)
        pdf.cell(0, 10, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=12)
        for sentence in sentences:
            pdf.multi_cell(0, 8, sentence, new_x="LMARGIN", new_y="NEXT")
    out.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(out))


def main() -> None:
    root = Path(__file__).resolve().parent.parent
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "samples" / "world-facts.pdf"
    build(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
