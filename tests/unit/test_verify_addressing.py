"""Whether an answer addresses its question (verify/addressing.py): a who / where, when or
how-many question is answered only by a sentence that gives a name, a time or a number the
question does not hold. The sentences are a new user's (Debian's bzip2 manual) and the
bench's gold sentences' shapes; questions of other shapes are not checked."""

from __future__ import annotations

import pytest

from trustgraph_base.provenance import TG
from trustgraph_base.provenance.verification import VerificationRecord, verification_triples
from trustgraph_base.rdf.terms import LiteralTerm
from trustgraph_flow.verify.addressing import unaddressed

WRITE = (
    "In this case, bzip2 will decline to write compressed output to a terminal, as this "
    "would be entirely incomprehensible and therefore pointless."
)
MEMORY = (
    "Note that the amount of memory needed to decompress a stream cannot be determined "
    "until the stream's header has been read, so even if BZ2_bzDecompressInit succeeds, a "
    "subsequent BZ2_bzDecompress could fail with BZ_MEM_ERROR."
)


@pytest.mark.parametrize(
    ("question", "claims", "why"),
    [
        # off the question: every word in the manual, but not what was asked
        ("Who wrote bzip2?", [WRITE], "asks who or where"),
        ("How much memory does bzip2 need to decompress?", [MEMORY], "gives a number"),
        ("When was bzip2 written?", [WRITE], "says a time"),
        ("Where was bzip2 written?", [WRITE], "asks who or where"),
        # a preposition of place opening the sentence, or before "this", names no place
        ("Where does the fox live?", ["In this case the fox is fine."], "asks who or where"),
        # a place answers where, not who
        ("Who found the fox?", ["The fox was found in the forest."], "asks who or where"),
        # an act after a preposition is no place (GraphRAG's answer from another licence)
        (
            "Where may modifications be posted under the Artistic License?",
            [
                "You may convey covered works, provided that you comply with the terms of this "
                "License in conveying all material."
            ],
            "asks who or where",
        ),
        ("In what year was the manual written?", [WRITE], "says a time"),
        # a version is no time (the bzip2 manual, asked when bzip2-0.1 was released)
        (
            "When was bzip2-0.1 released?",
            ["This manual page pertains to version 1.0.8 of bzip2."],
            "says a time",
        ),
        ("When was zpack released?", ["zpack-2.1 and zpack v3 replace it."], "says a time"),
        # an "@" or a scheme alone is no address
        (
            "Where do foxes live?",
            ["Foxes eat mice; mail@ and http: say nothing."],
            "asks who or where",
        ),
        # a word linking to the sentence before names nobody, nor does an act after "by"
        (
            "Who moderates the sed-users mailing list?",
            ["Instead of altering a file by moving the cursor, the user sends a script to sed."],
            "asks who or where",
        ),
    ],
)
def test_an_answer_that_does_not_give_what_is_asked(
    question: str, claims: list[str], why: str
) -> None:
    found = unaddressed(question, claims)
    assert found is not None and why in found, found


@pytest.mark.parametrize(
    ("question", "claims"),
    [
        ("Who wrote bzip2?", ["bzip2 is a program for data compression by Julian Seward."]),
        ("Who owns the mailboxes in /var/mail?", ["Mailboxes are owned by group mail."]),
        ("Who owns Postgresql databases?", ["Postgresql databases are owned by this user."]),
        ("How much memory does bzip2 need?", ["Decompression needs about 3700k of memory."]),
        ("How long is the Marrowby Bridge?", ["The bridge is two hundred metres long."]),
        ("How long did Miriam Oddie run it?", ["She ran it for forty years."]),
        ("When is the Skarra Museum open?", ["The museum opens from Easter to October."]),
        ("When does the society meet?", ["It meets on the first Friday of the month."]),
        ("When was Marrowby founded?", ["Marrowby was founded in 1642."]),
        ("When was version 2.0 released?", ["Version 2.0 was released in March 2019."]),
        ("When does the ferry leave?", ["The ferry leaves at 7 each morning."]),
        ("Where can bicycles be hired?", ["Bicycles can be hired at the pier in Port Ellis."]),
        # a place needs no capital (the suite's own sample: a fox's forest)
        ("Where does the fox live?", ["The fox lives in the forest."]),
        ("Where are the keys kept?", ["They are kept under a stone near the gate."]),
        ("Where are the keys kept?", ["They are kept in the building."]),
        # an address answers where (ed's README)
        ("Where should bugs in ed be reported?", ["Report bugs to bug-ed@gnu.org"]),
        ("Where is ed's home page?", ["Ed home page: http://www.gnu.org/software/ed/ed.html"]),
        ("Where is it mirrored?", ["It is mirrored at <ftp://ftp.gnu.org/gnu/ed/>."]),
        # one sentence that answers is enough; the others are the answer's own business
        ("Who wrote bzip2?", [WRITE, "Julian Seward wrote it."]),
        # shapes not checked: the answer need not repeat the kind asked for
        ("Which animal is found only on Skarra?", ["The Skarra vole is found nowhere else."]),
        ("What does bzcat do?", ["bzcat decompresses files to stdout."]),
    ],
)
def test_an_answer_that_gives_what_is_asked(question: str, claims: list[str]) -> None:
    assert unaddressed(question, claims) is None


def test_a_number_inside_a_name_is_no_amount() -> None:
    assert unaddressed("How many blocks are there?", ["BZ2_bzCompress fails."]) is not None
    assert unaddressed("How many blocks are there?", ["There are 9 blocks."]) is None


NOTICE = (
    "Copyright (C) 2007 Free Software Foundation, Inc. <https://fsf.org/> Everyone is "
    "permitted to copy and distribute verbatim copies of this license document."
)
FSF = "Who founded the Free Software Foundation?"


def test_what_only_looks_like_a_name_names_no_one() -> None:
    """The GPL's notice (GraphRAG's answer to the bench's trap, as one claim): a notice names
    its holder only, "Everyone" is a pronoun; a sentence's first word written in lower case
    in the evidence is no name; neither is an abbreviation."""
    found = unaddressed(FSF, [NOTICE])
    assert found is not None and "asks who or where" in found, found
    note = "Note that the Free Software Foundation publishes it."
    owns = "Who owns the Free Software Foundation?"  # no act of making: names alone count
    assert unaddressed(owns, [note], ["See the note below."]) is not None
    assert unaddressed(owns, [note]) is None  # never written in lower case: may be a name
    assert unaddressed(owns, ["The Free Software Foundation, Inc. is in Boston."]) is None
    assert unaddressed(owns, ["The Free Software Foundation, Inc. publishes it."]) is not None
    # who founded it: a name is not enough, the sentence must say who did (session 21)
    assert "asks who founded it" in (unaddressed(FSF, [note]) or "")
    assert unaddressed(FSF, ["It was founded by Richard Stallman in 1985."]) is None
    # a month is a time: the GPL's title block names no holder of its copyright
    holder = "Who holds the copyright of the GNU General Public License version 3?"
    title = "GNU GENERAL PUBLIC LICENSE Version 3, 29 June 2007"
    assert unaddressed(holder, [title]) is not None
    assert unaddressed(holder, [NOTICE]) is None  # the notice names its holder


@pytest.mark.parametrize(
    ("question", "claims", "evidence"),
    [
        # a notice's holder the question does not hold is a name
        ("Who holds the copyright?", ["Copyright 1996-2019 Julian Seward."], []),
        # a first word never written in lower case is a name
        ("Who founded Marrowby?", ["Wren founded Marrowby in 1642."], ["Wren was a miller."]),
        # one written so is still part of a name after it
        ("Who wrote the manual?", ["Julian Seward wrote it."], ["julian is a name."]),
    ],
)
def test_a_name_is_still_a_name(question: str, claims: list[str], evidence: list[str]) -> None:
    assert unaddressed(question, claims, evidence) is None


def test_no_claims_are_left_to_the_other_checks() -> None:
    assert unaddressed("Who wrote bzip2?", []) is None
    assert unaddressed("Who wrote bzip2?", ["  "]) is None


def test_the_verification_records_whether_the_answer_addresses_the_question() -> None:
    def triples(addressed: bool | None) -> list[LiteralTerm]:
        record = VerificationRecord(
            method="heuristic",
            model="offline",
            started_at="2026-01-01T10:00:00.000Z",
            ended_at="2026-01-01T10:00:00.004Z",
            evidence=[],
            assessments=[],
            answer_verdict="unsupported",
            reason="the question asks who or where, …",
            addressed=addressed,
        )
        found = verification_triples("urn:trustgraph:question:q1/synthesis", record)
        return [t.o for t in found if t.p == TG.addressesQuestion]  # type: ignore[misc]

    (said,) = triples(False)
    assert said.v == "false" and said.dt is not None and said.dt.endswith("#boolean")
    assert [t.v for t in triples(True)] == ["true"]
    assert triples(None) == []  # not checked (an LLM judged): nothing said


@pytest.mark.parametrize(
    ("question", "claim", "addressed"),
    [
        # the act or an agentive form relates someone to the thing
        ("Who originally wrote Wget?", "Wget was originally written by Hrvoje Niksic.", True),
        ("Who wrote lzbench?", "lzbench, an in-memory benchmark by @inikep, is used.", True),
        ("Who wrote Tools in Pascal?", 'See Ada Kell\'s book "Tools in Pascal", 1981.', True),
        ("Who wrote OttoPDF?", "The author of OttoPDF is Joel Hainley.", True),
        ("Who devised the transform?", "It is due to (at least) Michael Burrows.", True),
        ("Who built the chapel?", "The chapel was built by monks from Iona.", True),
        # a name, but nothing says who did it
        ("Who founded Facebook?", "Zstandard is deployed within Facebook.", False),
        ("Who founded Facebook?", "Zstandard was developed at Facebook.", False),  # another act
        (
            "Who designed the Eiffel Tower?",
            "Maxwell's photo of the Eiffel Tower hangs here.",
            False,
        ),
        ("Who designed the Belem Tower?", "The Belem Tower in Lisbon was built in 1520.", False),
        ("Who designed the xz format?", "XZ Utils create smaller files than gzip.", False),
        ("Who invented the convention?", "The convention is made by the Compiler.", True),
        ("Who created the gzip format?", "It is due to a choice of the HTTP authors.", False),
        ("Who wrote the paper?", "This paper describes a word-by-word CRC algorithm.", False),
    ],
)
def test_who_made_it_is_said_by_the_act_or_an_agentive_form(
    question: str, claim: str, addressed: bool
) -> None:
    assert (unaddressed(question, [claim]) is None) is addressed, unaddressed(question, [claim])
