"""The second development set (session 19): questions on three real documents nobody on the
project had read before (zlib's FAQ, zstd's README in Markdown, and Kadatch and Jenkins' CRC
paper, a 29-page PDF zlib1g-dev installs), written from the documents before the engine ran
on them. Like the first set (dev_questions.py) they are for studying misses by cause and
count as tuned; they go into a collection of their own, with out-of-corpus questions of their
own that use the documents' vocabulary but that the documents do not answer. A PDF
question's page is the page of the decoded PDF (1 is the title page)."""

from __future__ import annotations

from pathlib import Path

DEV19_COLLECTION = "bench-answers-dev19"
# key (also the title it is loaded with): path, Debian package
DEV19_DOCS = {
    "zlib-faq": (Path("/usr/share/doc/zlib1g-dev/FAQ.gz"), "zlib1g-dev"),
    "zstd-readme": (Path("/usr/share/doc/zstd/README.md.gz"), "zstd"),
    "crc-paper": (Path("/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz"), "zlib1g-dev"),
}
DEV19_ROWS: list[tuple[str, tuple[str, ...], str, int | None]] = [
    ("Who is the author of OttoPDF?", ("Joel Hainley",), "zlib-faq", None),
    ("Who wrote minizip?", ("Giles Vollant",), "zlib-faq", None),
    (
        "Which directory holds a simpler version of inflate?",
        ("contrib/puff",),
        "zlib-faq",
        None,
    ),
    ("How is zlib classified for export controls?", ("EAR99",), "zlib-faq", None),
    (
        "Which function makes deflate write the gzip format?",
        ("deflateInit2",),
        "zlib-faq",
        None,
    ),
    (
        "Which zlib versions were subject to a double-free vulnerability?",
        ("1.1.3",),
        "zlib-faq",
        None,
    ),
    (
        "What is the limit if the compiler's long type is 64 bits?",
        ("16 exabytes",),
        "zlib-faq",
        None,
    ),
    ("Which Java package includes zlib?", ("java.util.zip",), "zlib-faq", None),
    ("Which RFC documents the Zstandard format?", ("RFC8878",), "zstd-readme", None),
    ("Which library provides zstd's entropy stage?", ("Huff0", "FSE"), "zstd-readme", None),
    ("Under which licenses is Zstandard distributed?", ("BSD", "GPLv2"), "zstd-readme", None),
    ("Who wrote lzbench?", ("inikep",), "zstd-readme", None),
    (
        "On which corpus were the compression algorithms tested?",
        ("Silesia",),
        "zstd-readme",
        None,
    ),
    (
        "Who keeps the zstd port in vcpkg up to date?",
        ("Microsoft team members",),
        "zstd-readme",
        None,
    ),
    (
        "In which file is the result of training Zstandard stored?",
        ("dictionary",),
        "zstd-readme",
        None,
    ),
    ("Where is the cmake project generator provided?", ("build/cmake",), "zstd-readme", None),
    ("Who wrote the paper on CRC?", ("Andrew Kadatch", "Bob Jenkins"), "crc-paper", 1),
    (
        "How many CPU cycles per byte does the new CRC algorithm need?",
        ("1.2 CPU cycles",),
        "crc-paper",
        1,
    ),
    ("Who proposed Cyclic Redundancy Checks?", ("Peterson",), "crc-paper", 3),
    ("When were Cyclic Redundancy Checks proposed?", ("1961",), "crc-paper", 3),
    (
        "Who published the classic byte-by-byte CRC algorithm?",
        ("Sarwate",),
        "crc-paper",
        3,
    ),
    ("When did Ji and Killian describe their scheme?", ("2002",), "crc-paper", 3),
    (
        "Who implemented storing a sequence of bits after a message?",
        ("Zemtsov",),
        "crc-paper",
        4,
    ),
]
# The documents' vocabulary, asked for what they do not say.
DEV19_OUT_OF_CORPUS = [
    "Who created the gzip format?",
    "Who founded Facebook?",
    "When was Zstandard first released?",
    "Who invented Huffman coding?",
]
