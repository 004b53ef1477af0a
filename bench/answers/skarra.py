"""The bench's PDF, written for it: a four-page guide to an island that does not exist,
drawn with fpdf2 at run time (so the gold page of each fact is known)."""

from __future__ import annotations

from pathlib import Path

TITLE = "A Guide to the Isle of Skarra"
PAGES = [
    (
        "The island",
        "Skarra is the largest of the Tamsin Islands, a group of nine islands off the west "
        "coast of the Vale of Amsel. The island is 14 kilometres long and 6 kilometres wide. "
        "Its highest hill, Ben Corra, rises to 487 metres. The capital of Skarra is Port "
        "Ellis, a harbour village of about 600 people. Ferries sail from Port Ellis to "
        "Marrowby Quay twice a day in summer. The island was bought by the Amsel Trust in 1961.",
    ),
    (
        "History",
        "The first settlers on Skarra were farmers who came from Ireland around 800. The "
        "chapel of Saint Ronan was built by monks from Iona in 1104. The lighthouse on "
        "Garra Point was designed by Alan Stevenson and was lit in 1847. Orla Quist, the "
        "chemist, retired to Skarra in 1912 and founded the Skarra Museum in 1920. The "
        "last herring boat left Port Ellis in 1958.",
    ),
    (
        "Wildlife",
        "Puffins, gannets and razorbills nest on the cliffs of the north shore from April "
        "to August. The Skarra vole is found nowhere else in the world. Grey seals breed "
        "in the caves below Ben Corra in the autumn. The machair on the west side is "
        "covered with orchids in June. Otters are often seen at Loch Fada.",
    ),
    (
        "Visiting",
        "The Skarra Museum is open from Easter to October. It holds the herbarium of Orla "
        "Quist and a collection of old fishing gear. The island has one shop, one school "
        "and one hotel, the Corra Arms. Bicycles can be hired at the pier in Port Ellis. "
        "Camping is allowed only at the Traigh Mhor site, which is run by the Amsel Trust.",
    ),
]


def write_pdf(path: Path) -> Path:
    """The guide as a PDF at ``path``: one section a page, its heading first."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title(TITLE)
    for heading, text in PAGES:
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 16)
        pdf.multi_cell(0, 10, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", "", 12)
        pdf.multi_cell(0, 7, text, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path
