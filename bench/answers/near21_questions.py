"""The third development set (session 21): near-topic questions on four READMEs no other bench
reads (GNU Wget's, libffi's, XZ Utils' and GNU Make's), written before the engine ran on them.
Most ask *who* did something the documents mention but do not say who did ("Who founded the
GNU project?", "Who wrote OpenSSL?"): the documents' own vocabulary, out of corpus. A few
they do answer are mixed in, so abstaining on everything does not pass."""

from __future__ import annotations

from pathlib import Path

NEAR21_COLLECTION = "bench-answers-near21"
# key (also the title it is loaded with): path, Debian package
NEAR21_DOCS = {
    "wget-readme": (Path("/usr/share/doc/wget/README"), "wget"),
    "libffi-readme": (Path("/usr/share/doc/libffi8/README.md.gz"), "libffi8"),
    "xz-readme": (Path("/usr/share/doc/xz-utils/README.gz"), "xz-utils"),
    "make-readme": (Path("/usr/share/doc/make/README.gz"), "make"),
}
NEAR21_ROWS: list[tuple[str, tuple[str, ...], str, int | None]] = [
    ("Who originally wrote Wget?", ("Hrvoje Niksic",), "wget-readme", None),
    ("Where should bugs in Wget be reported?", ("bug-wget@gnu.org",), "wget-readme", None),
    ("Who originally wrote libffi?", ("Anthony Green",), "libffi-readme", None),
    (
        "Who did a tremendous amount of work on the libffi testsuite?",
        ("Andreas Tobler",),
        "libffi-readme",
        None,
    ),
    (
        "Who solved the executable page problem for SElinux?",
        ("Alex Oliva",),
        "libffi-readme",
        None,
    ),
    ("When was libffi-3.4.4 released?", ("2022",), "libffi-readme", None),
    ("Who are the project maintainers of XZ Utils?", ("Lasse Collin",), "xz-readme", None),
    ("Who hosts GNU Make development?", ("Savannah",), "make-readme", None),
    ("Who holds the copyright of GNU Make?", ("Free Software Foundation",), "make-readme", None),
]
# The documents' vocabulary, asked for what they do not say.
NEAR21_OUT_OF_CORPUS = [
    "Who founded the GNU project?",
    "Who invented the LZMA algorithm?",
    "Who designed the HTTP protocol?",
    "Who created the Robot Exclusion Standard?",
    "Who wrote the GNU Make manual?",
    "Who developed Purify?",
    "Who founded Savannah?",
    "Who wrote OpenSSL?",
    "When was GNU Make first released?",
    "Who created the Linux kernel?",
    "Who invented the calling convention?",
    "Who designed the .xz file format?",
]
