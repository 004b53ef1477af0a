"""Recall on plain README prose (issue 29, session 20): GNU gettext's README gave no edge at
all. Each rule has its cause's sentence (written for these tests, not a README's own) and a
sentence beside it that must stay as it was: a fronted phrase with no comma, a lower-case
program name after 'the' and before its kind, a relative clause after a name, a quoted
term, a sentence opening with lower-case names, 'is able to', 'does not', 'NOT' in capitals
and a file's extension."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges
from trustgraph_flow.llm.extract_tokens import sentence_tokens

OPENED = "Zedit README.\n\n"  # what comes before: the sentence surely starts where it does


def _triples(text: str) -> set[tuple[str, str, str]]:
    return {(e.s, e.p, e.o) for e in extract_edges(OPENED + text)}


def test_a_name_after_an_opening_phrase_with_no_comma() -> None:
    assert _triples("For this task GNU zedit provides the needed tools.") == {
        ("GNU zedit", "provides", "needed tools")
    }
    assert ("qmerge", "uses", "LZ77") in _triples("By default qmerge uses the LZ77 algorithm.")
    # a participle with a comma after it is the opening phrase's own: no subject
    assert _triples("At the URLs listed in this category, zedit binaries can be found.") == set()
    # the opening phrase's own verb: no subject
    assert _triples("On write emphasise speed over compression.") == set()


def test_a_lower_case_name_after_the_and_before_its_kind() -> None:
    assert _triples("The qmerge program prepares a message catalog before an update.") == {
        ("qmerge program", "prepares", "message catalog")
    }
    assert _triples("The configure script provides a non-standard option.") == {
        ("configure script", "provides", "non-standard option")
    }
    # a word the lexicon knows as a noun is a description, not a name
    assert _triples("The grammar comes from the standard document.") == set()


def test_a_relative_clause_after_a_name_states_the_names_fact() -> None:
    said = _triples(
        "Hale gave the work to Amos Hart, who also built the mill. "
        "Zip is constrained by PKWare, which is a commercial company."
    )
    assert ("Amos Hart", "built", "mill") in said
    assert ("PKWare", "is a", "commercial company") in said
    # a common noun, a list's item or a place before it: 'which' may mean the whole
    assert _triples("Zedit uses a lot of memory, which is a problem.") == {("Zedit", "uses", "lot")}
    assert not any(
        s == "Zedit"
        for s, _, _ in _triples("Type it into the Zedit, which is then converted to text.")
    )
    # 'which' after a work's author is the work's ('who' is the author's)
    said = _triples("Zedit ships qzip by Giles Vollant, which is found in the extra directory.")
    assert not any(s == "Giles Vollant" for s, _, _ in said)
    said = _triples("It was written by Guy Hale, but by Ann Dilger, who had taken over from Guy.")
    assert ("Ann Dilger", "had taken over from", "Guy") in said


def test_where_a_thing_is_provided_keeps_within() -> None:
    assert _triples("A qmake project generator is provided within build/qmake.") == {
        ("qmake project generator", "is provided within", "build/qmake")
    }


def test_a_quoted_term_is_read_as_its_word() -> None:
    assert sentence_tokens("It provides the 'qmerge' program.") == [
        "It",
        "provides",
        "the",
        "qmerge",
        "program",
    ]
    said = _triples("GNU zedit provides the 'qmerge' program, which prepares a message catalog.")
    assert said == {
        ("GNU zedit", "provides", "qmerge program"),
        ("qmerge program", "prepares", "message catalog"),
    }
    assert sentence_tokens("'N' adds a line.")[:3] == ["'", "N", "'"]  # a letter stays quoted


def test_a_sentence_opening_with_lower_case_names() -> None:
    assert _triples("qzip and qunzip are not associated with the GNU project.") == {
        ("qzip", "are not associated with", "GNU"),
        ("qunzip", "are not associated with", "GNU"),
    }
    assert _triples("zip 1.9 and qzip do not support older compression methods.") == {
        ("zip 1.9", "do not support", "older compression methods"),
        ("qzip", "do not support", "older compression methods"),
    }
    assert _triples("qunzip checks the uncompressed length.") == {
        ("qunzip", "checks", "uncompressed length")
    }
    # a verb the lexicon knows only as one is still a program's name in lower case
    assert _triples("unzip can also decompress old zip archives.") == {
        ("unzip", "can decompress", "old zip archives")
    }
    # a noun with a verb after it: 'files' is the subject's noun, not its verb
    assert not any(p.startswith("files") for _, p, _ in _triples("qzip files are archives."))


def test_is_able_to_does_not_and_capital_not() -> None:
    said = _triples(
        "qunzip is sometimes able to detect a bad .Z file. "
        "Zedit does not support older compression methods. "
        'The "byte code" is NOT the dc language.'
    )
    assert said == {
        ("qunzip", "is able to detect", "bad .Z file"),
        ("Zedit", "does not support", "older compression methods"),
        ("byte code", "is not the", "dc language"),
    }
    assert sentence_tokens("It reads .gz files.")[2] == ".gz"
    assert sentence_tokens("It ends here. Next one.")[:4] == ["It", "ends", "here", "."]
