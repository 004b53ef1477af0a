"""The fourth development set (session 22): questions on four READMEs no other bench reads
(GNU coreutils', GnuPG's, adduser's and Avahi's), written from the documents before the
engine ran on them and before session 22 changed anything, so that session's changes can be
shown to hold on text nobody tuned them to. A few out-of-corpus questions use the documents'
vocabulary for what they do not say."""

from __future__ import annotations

from pathlib import Path

RECALL22_COLLECTION = "bench-answers-recall22"
# key (also the title it is loaded with): path, Debian package
RECALL22_DOCS = {
    "coreutils-readme": (Path("/usr/share/doc/coreutils/README.gz"), "coreutils"),
    "gnupg-readme": (Path("/usr/share/doc/gnupg/README.gz"), "gnupg"),
    "adduser-readme": (Path("/usr/share/doc/adduser/README.gz"), "adduser"),
    "avahi-readme": (Path("/usr/share/doc/avahi-daemon/README"), "avahi-daemon"),
}
RECALL22_ROWS: list[tuple[str, tuple[str, ...], str, int | None]] = [
    (
        "Which packages are the GNU core utilities the union of?",
        ("fileutils",),
        "coreutils-readme",
        None,
    ),
    ("When was the C99 requirement added to coreutils?", ("2009",), "coreutils-readme", None),
    (
        "Which environment variable names the non-root user for the coreutils tests?",
        ("NON_ROOT_USERNAME",),
        "coreutils-readme",
        None,
    ),
    ("Which standard does GnuPG implement?", ("OpenPGP",), "gnupg-readme", None),
    (
        "When did the 2.0 series of GnuPG reach end-of-life?",
        ("2017-12-31",),
        "gnupg-readme",
        None,
    ),
    (
        "Which mailing list should be asked about GnuPG build problems?",
        ("gnupg-users@gnupg.org",),
        "gnupg-readme",
        None,
    ),
    (
        "Who holds the copyright of GnuPG?",
        ("Werner Koch", "Free Software Foundation", "g10 Code"),
        "gnupg-readme",
        None,
    ),
    ("Which commands does the adduser package include?", ("deluser",), "adduser-readme", None),
    (
        "Where is the distinction between system users and user accounts documented?",
        ("Debian Policy",),
        "adduser-readme",
        None,
    ),
    ("What does Avahi implement?", ("mDNS",), "avahi-readme", None),
    ("Where should bugs in Avahi be reported?", ("bugzilla",), "avahi-readme", None),
    ("Who holds the copyright of Avahi?", ("Avahi developers",), "avahi-readme", None),
]
# The documents' vocabulary, asked for what they do not say.
RECALL22_OUT_OF_CORPUS = [
    "Who designed the mDNS protocol?",
    "Who wrote the OpenPGP standard?",
    "When was Debian Policy first published?",
    "Who created the GNU fileutils package?",
]
