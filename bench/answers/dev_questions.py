"""The development set (session 17): questions on three real documents a new user might load
(the bzip2 manual, the GFDL-1.3, the sed FAQ; the same three bench/extract_debian.py reads),
written from the documents as a user would ask them, before the engine ran on any of them.
They are for studying misses by cause and fixing general causes, so they count as tuned; the
report prints them as their own part ("dev"), loaded into a collection of their own so the
other parts' figures stay comparable with earlier sessions'. A PDF question's page is the
page of the decoded PDF (1 is the title page)."""

from __future__ import annotations

from pathlib import Path

DEV_COLLECTION = "bench-answers-dev"
# key (also the title it is loaded with): path, Debian package
DEV_DOCS = {
    "bzip2-manual": (Path("/usr/share/doc/bzip2/manual.pdf.gz"), "bzip2"),
    "gfdl-1.3": (Path("/usr/share/common-licenses/GFDL-1.3"), "base-files"),
    "sed-faq": (Path("/usr/share/doc/sed/sedfaq.txt.gz"), "sed"),
}
DEV_ROWS: list[tuple[str, tuple[str, ...], str, int | None]] = [
    ("Who XMLised the bzip2 documentation?", ("Donna Robinson",), "bzip2-manual", 10),
    ("Who contributed the zlib compatibility functions?", ("Yoshioka Tsuneo",), "bzip2-manual", 12),
    ("How many bits long is the pattern that delimits each block?", ("48",), "bzip2-manual", 9),
    (
        "Who encouraged the author to look for faster sorting algorithms?",
        ("Christian von Roques",),
        "bzip2-manual",
        10,
    ),
    (
        "Who devised the block sorting transformation?",
        ("Michael Burrows", "David Wheeler"),
        "bzip2-manual",
        10,
    ),
    ("Which header file must be included to use libbzip2?", ("bzlib.h",), "bzip2-manual", 12),
    (
        "How much memory does bunzip2 need for a file compressed with the default block size?",
        ("3700",),
        "bzip2-manual",
        8,
    ),
    ("When was bzip2-0.1 released?", ("August 1997",), "bzip2-manual", 34),
    (
        "Who published a suffix array construction algorithm?",
        ("Udi Manber", "Gene Myers"),
        "bzip2-manual",
        34,
    ),
    ("Which environment variables does bzip2 read arguments from?", ("BZIP2",), "bzip2-manual", 6),
    (
        "When was version 1.3 of the GNU Free Documentation License published?",
        ("3 November 2008",),
        "gfdl-1.3",
        None,
    ),
    ("How many words may a Front-Cover Text have?", ("5 words", "five words"), "gfdl-1.3", None),
    ("How many words may a Back-Cover Text have?", ("25 words",), "gfdl-1.3", None),
    (
        "What is an example of a Massive Multiauthor Collaboration Site?",
        ("public wiki",),
        "gfdl-1.3",
        None,
    ),
    (
        "Which license does the GNU Free Documentation License complement?",
        ("GNU General Public License",),
        "gfdl-1.3",
        None,
    ),
    ("Until when may an MMC be republished under CC-BY-SA?", ("August 1, 2009",), "gfdl-1.3", None),
    ("Who wrote sed?", ("McMahon",), "sed-faq", None),
    ("Who maintains the sed FAQ?", ("Eric Pement",), "sed-faq", None),
    ("What does sed stand for?", ("stream editor",), "sed-faq", None),
    ("Which version of sed do the FAQ maintainers recommend?", ("ssed",), "sed-faq", None),
    ("Who moderates the sed-users mailing list?", ("Sven Guckes",), "sed-faq", None),
    ("Who wrote Sed & Awk?", ("Dale Dougherty", "Arnold Robbins"), "sed-faq", None),
    ("Who created U/WIN?", ("David Korn",), "sed-faq", None),
]
