"""The bench's questions: each with gold answers (any one, compared without case), the
document (by key, ``corpus``) and page (PDF only; None: the document is the place) the answer
is on, and whether it is held out. The held-out third (every third question, chosen before
any tuning) was never looked at one by one while the offline engine was tuned: it is
reported apart, as the figure to trust."""

from __future__ import annotations

from dataclasses import dataclass

from bench.answers.dev19_questions import DEV19_ROWS
from bench.answers.dev_questions import DEV_ROWS
from bench.answers.near21_questions import NEAR21_ROWS
from bench.answers.recall22_questions import RECALL22_ROWS


@dataclass(frozen=True)
class Question:
    text: str
    gold: tuple[str, ...]
    doc: str
    page: int | None = None
    held_out: bool = False
    # a development set's name ("dev": dev_questions.py, "dev19": dev19_questions.py,
    # "near21": near21_questions.py, "recall22": recall22_questions.py), each
    # its own part and collection; "" for the bench's own questions
    dev: str = ""


_ROWS: list[tuple[str, tuple[str, ...], str, int | None]] = [
    ("Who founded Marrowby?", ("Tobias Wren",), "marrowby", None),
    ("When was Marrowby founded?", ("1642",), "marrowby", None),
    ("Who designed the Marrowby Bridge?", ("Casimir Rook",), "marrowby", None),
    ("How long is the Marrowby Bridge?", ("212 metres",), "marrowby", None),
    ("Who opened the Marrowby Bridge?", ("Queen Adela",), "marrowby", None),
    ("What does Marrowby export?", ("wool", "tin", "copper"), "marrowby", None),
    (
        "Who founded the Marrowby Society?",
        ("Hester Vane", "Jonah Mott", "Ida Crane"),
        "marrowby",
        None,
    ),
    ("Who published the Marrowby Gazette?", ("Jonah Mott",), "marrowby", None),
    ("Who opened the Fenwick Works?", ("Edda Lind",), "marrowby", None),
    ("What is added to the water at the Fenwick Works?", ("chlorine",), "marrowby", None),
    ("On which river does Marrowby lie?", ("Tell",), "marrowby", None),
    ("When was the Penhale Mine dug?", ("1790",), "marrowby", None),
    ("Who was the first woman elected mayor of Marrowby?", ("Ida Crane",), "marrowby", None),
    ("Where was Orla Quist born?", ("Bergen",), "quist", None),
    ("What did Orla Quist discover in 1886?", ("salt", "quistite"), "quist", None),
    ("Where did Orla Quist study chemistry?", ("Uppsala",), "quist", None),
    ("Which medal did Orla Quist receive in 1907?", ("Keller Medal",), "quist", None),
    ("Who awards the Keller Medal?", ("Northern Chemical Society",), "quist", None),
    ("Who wrote the standard textbook on filtration?", ("Peter Lusk",), "quist", None),
    ("Where did Orla Quist teach?", ("Anderson College",), "quist", None),
    ("When did Orla Quist die?", ("1931",), "quist", None),
    ("What is the capital of Skarra?", ("Port Ellis",), "skarra", 1),
    ("How high is Ben Corra?", ("487 metres",), "skarra", 1),
    ("Who designed the lighthouse on Garra Point?", ("Alan Stevenson",), "skarra", 2),
    ("Who built the chapel of Saint Ronan?", ("Iona",), "skarra", 2),
    ("Which animal is found only on Skarra?", ("Skarra vole",), "skarra", 3),
    ("When is the Skarra Museum open?", ("Easter to October",), "skarra", 4),
    ("Where can bicycles be hired on Skarra?", ("pier",), "skarra", 4),
    ("Who bought the island of Skarra in 1961?", ("Amsel Trust",), "skarra", 1),
    (
        "Who holds the copyright of the GNU General Public License version 3?",
        ("Free Software Foundation",),
        "gpl-3",
        None,
    ),
    ("When was version 3 of the GNU General Public License published?", ("2007",), "gpl-3", None),
    ("When was the Apache License Version 2.0 released?", ("January 2004",), "apache-2.0", None),
    (
        "Who is the license steward of the Mozilla Public License?",
        ("Mozilla Foundation",),
        "mpl-2.0",
        None,
    ),
    ("What kind of license is the GNU General Public License?", ("copyleft",), "gpl-3", None),
    ("Which user is typically the superuser?", ("root",), "users-and-groups", None),
    (
        "Which tool keeps the entries of the master files in sync?",
        ("update-passwd",),
        "users-and-groups",
        None,
    ),
    ("Who owns the mailboxes in /var/mail?", ("mail",), "users-and-groups", None),
    ("Which user does squid run as?", ("proxy",), "users-and-groups", None),
    ("Who owns Postgresql databases?", ("postgres",), "users-and-groups", None),
]
# Added in session 12, all held out: written (with the document hollin.txt and Debian's BSD
# and Artistic licences they ask of) before the engine was run on them, never tuned against.
_ADDED: list[tuple[str, tuple[str, ...], str, int | None]] = [
    ("When was the Hollin Observatory built?", ("1868",), "hollin", None),
    ("Who made the main dome of the Hollin Observatory?", ("Abel Tarrant",), "hollin", None),
    ("Who ground the lens of the great telescope?", ("Clara Went",), "hollin", None),
    ("Who ran the Hollin Observatory for forty years?", ("Miriam Oddie",), "hollin", None),
    ("Who printed Miriam Oddie's catalogue?", ("Lune Press",), "hollin", None),
    ("When did Miriam Oddie find a comet?", ("1923",), "hollin", None),
    ("Where was the lens stored during the war?", ("Garsdale",), "hollin", None),
    ("Who owns the Hollin Observatory today?", ("Cragg Fell Trust",), "hollin", None),
    ("When does the Hollin Astronomical Society meet?", ("first Friday",), "hollin", None),
    ("Who left the observatory to the town of Hollin?", ("Brisco",), "hollin", None),
    (
        "Who holds the copyright of the BSD license?",
        ("Regents of the University of California",),
        "bsd",
        None,
    ),
    (
        "What does Package refer to in the Artistic License?",
        ("collection of files",),
        "artistic",
        None,
    ),
    (
        "Where may modifications be posted under the Artistic License?",
        ("Usenet",),
        "artistic",
        None,
    ),
]
# Added in session 13 beside two out-of-corpus questions of the same shape (below), asked of
# tour.txt, which holds other capitals and names Peru, and names the Eiffel Tower but not who
# designed it: written with the rule that makes those abstain in mind, so tuned, not held out.
_SHAPES: list[tuple[str, tuple[str, ...], str, int | None]] = [
    ("What is the capital of Portugal?", ("Lisbon",), "tour", None),
    ("Who designed the Blackpool Tower?", ("Maxwell", "Tuke"), "tour", None),
    ("When was the Eiffel Tower finished?", ("1889",), "tour", None),
]
QUESTIONS = (
    [
        Question(text, gold, doc, page, held_out=(n % 3 == 2))
        for n, (text, gold, doc, page) in enumerate(_ROWS)
    ]
    + [Question(text, gold, doc, page, held_out=True) for text, gold, doc, page in _ADDED]
    + [Question(text, gold, doc, page) for text, gold, doc, page in _SHAPES]
    + [Question(text, gold, doc, page, dev="dev") for text, gold, doc, page in DEV_ROWS]
    + [Question(text, gold, doc, page, dev="dev19") for text, gold, doc, page in DEV19_ROWS]
    + [Question(text, gold, doc, page, dev="near21") for text, gold, doc, page in NEAR21_ROWS]
    + [Question(text, gold, doc, page, dev="recall22") for text, gold, doc, page in RECALL22_ROWS]
)
# Nothing in the corpus answers these: the right answer is that the documents do not say.
OUT_OF_CORPUS = [
    "What is the boiling point of mercury?",
    "Who won the 1998 World Cup?",
    "What is the capital of Australia?",
    "How many moons does Jupiter have?",
    "Who painted the Mona Lisa?",
    "What is the speed of light?",
    "Who wrote Pride and Prejudice?",
    "When did the Berlin Wall fall?",
    "What is the population of Tokyo?",
    "Which river flows through Cairo?",
    # a thing no document mentions, and a relation word they use (session 12)
    "Who discovered penicillin?",
    "Who designed the Sydney Opera House?",
    "Who wrote Dracula?",
    "Who founded the Red Cross?",
    # what a document names, asked for what it does not say of it (session 13, tour.txt):
    # other capitals, and Peru named for something else; the tower, but not its designer
    "What is the capital of Peru?",
    "Who designed the Eiffel Tower?",
    "Who designed the Belem Tower?",
    # off-topic traps on Debian's documents (session 15): what they name, asked for what they
    # do not say (the root account, the MPL's steward, the GPL's publisher); main's GraphRAG
    # answered each with a sentence of the right document that does not answer it
    "When was the root account created?",
    "How many employees does the Mozilla Foundation have?",
    "Who founded the Free Software Foundation?",
]
