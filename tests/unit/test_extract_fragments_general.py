"""Session 19's junk causes (issue 29), general ones, not words of the documents studied:
text that is not a sentence (a state machine's arrows and labels, a line of words running
into one), fragments whose verb is not a verb (a bare 'not', a participle with its agent and
no auxiliary, an '-s' noun after a list of names, an '-ing' word after a passive, an
irregular participle after a copula) and names the tokens cut ('32-bit', 'png_read').
Each gives no junk edge; the prose beside it is read as before."""

from __future__ import annotations

from trustgraph_flow.llm.extract import extract_edges
from trustgraph_flow.llm.extract_tokens import sentence_tokens


def _triples(text: str) -> set[tuple[str, str, str]]:
    return {(e.s, e.p, e.o) for e in extract_edges(text)}


STATES = """Zlink keeps a list of hosts.

Server:
                   Client-requested close of one session -> close
idle:              Timer expires on the session -> idle

                   Remove old host from the list kept for the server
remove-host:
                   -> idle

Zlink sends a Hello packet to each host.
"""


def test_a_state_machines_lines_give_no_edge_and_the_prose_around_them_does() -> None:
    found = _triples(STATES)
    assert found == {("Zlink", "keeps", "hosts"), ("Zlink", "sends", "Hello")}, found


def test_a_sentence_showing_code_set_deeper_or_cut_by_a_rule_is_still_read() -> None:
    shown = (
        "In general, a sample value is accessed by Qedit such as\n"
        "        image[component][row][col]\n"
        "where col is measured from the left edge.\n"
    )
    assert ("Qedit", "accessed", "sample value") in _triples(shown)
    ruled = (
        "Zedit is a small editor and its on-disk formats have changed a number of\n"
        "times to provide features beyond what Qedit needs, so the\n"
        "____________________\n"
    )
    assert ("Zedit", "is a", "small editor") in _triples(ruled)


def test_a_participle_with_no_auxiliary_is_a_heading_not_an_act() -> None:
    assert _triples("Willing not received by the display.") == set()
    assert _triples("Message received out of order by manager.") == set()
    # a past tense and a year, and an auxiliary in the sentence, are read as before
    assert ("Hale", "worked in", "Leeds") in _triples("Hale worked in Leeds by 1880.")
    # a base form in '-eed' is no participle
    assert ("Zedit", "need approval by", "Lee Hale") in _triples("Zedit need approval by Lee Hale.")
    assert ("Lee Hale", "wrote", "Zedit") in _triples("Zedit was written by Lee Hale in 1974.")


def test_an_s_word_after_a_list_of_names_is_a_noun_not_a_verb() -> None:
    assert _triples("The Hostname and Status fields as in the Willing packet.") == set()
    assert _triples("Hale and Mott own the mill.") == {
        ("Hale", "own", "mill"),
        ("Mott", "own", "mill"),
    }


def test_no_thing_is_a_passives_ing_word_nor_an_irregular_participle() -> None:
    assert _triples("Failed message is sent including a human readable reason.") == set()
    assert _triples("Error message is lost.") == set()
    assert _triples("Zedit supports scripting.") == {("Zedit", "supports", "scripting")}


def test_a_numbers_measure_and_a_name_with_underscores_are_one_token() -> None:
    assert _triples("The Session ID is a 32-bit number.") == {("Session ID", "is", "32-bit number")}
    assert _triples("PNG_MAX_UINT was replaced with PNG_UINT_31_MAX.") == {
        ("PNG_MAX_UINT", "was replaced with", "PNG_UINT_31_MAX")
    }
    # emphasis marks are still read past, and a range keeps its dash
    assert sentence_tokens("The _Zedit_ manual covers 1991-2012.") == [
        "The",
        "Zedit",
        "manual",
        "covers",
        "1991",
        "-",
        "2012",
    ]


GUIDE = """Zedit reads its input from files.

```sh
Zedit writes stdout
Hale built the mill
```

[source,shell]
----
Qedit copies stdin
----

--prefix=<prefix>::
	Zedit takes the path of the subtree.

Write packed data to the sink module.
Separate bit fields with commas.
The Qedit buffer will possibly overflow in loops.
Benchmarks had shown that Qedit is slow.
Setup is achieved by running qedit.init in the home directory.
Copyright Copyright holder
"""


def test_code_blocks_an_option_term_and_misread_verbs_give_no_edge() -> None:
    assert _triples(GUIDE) == {("Zedit", "reads", "input")}


def test_an_act_after_is_to_is_no_thing() -> None:
    assert _triples("Another alternative is to get an external program.") == set()
    assert _triples("Zedit's normal behavior is to print the file.") == set()
    assert _triples("Marrowby is to the north of Leeds.") == {
        ("Marrowby", "is to the north of", "Leeds")
    }


def test_a_past_tense_with_its_object_is_no_imperative() -> None:
    assert _triples("Mark founded the firm.") == {("Mark", "founded", "firm")}
    assert _triples("Hale designed bridges.") == {("Hale", "designed", "bridges")}


def test_a_verb_after_or_an_aim_or_an_empty_it_is_no_thing() -> None:
    assert _triples("The Zedit board can remove old members or provide them with a title.") == {
        ("Zedit board", "can remove", "old members")
    }
    assert _triples("Zedit seeks to resolve issues.") == set()
    assert _triples("Zedit tries to decompress.") == set()
    assert _triples("Zedit has to have full control from the start.") == set()
    found = _triples("Zedit has a cache in place, but it is important to flush it.")
    assert found == {("Zedit", "has", "cache")}, found


def test_a_title_underlined_with_tildes_and_an_unclosed_fence_open_no_block() -> None:
    underlined = "Zedit FAQ\n~~~~~~~~~\n\nZedit reads its input from files.\n"
    assert _triples(underlined) == {("Zedit", "reads", "input")}
    unclosed = "Zedit reads its input.\n\n```\nQedit writes its output to files.\n"
    assert ("Qedit", "writes", "output") in _triples(unclosed)


def test_a_commit_id_is_one_token_not_a_number_cut_from_its_letters() -> None:
    # 'as of commit 0a8f4f0' gave the literal '0' (git-subtree's manual); a decade keeps its 's'
    assert sentence_tokens("zedit was merged into qedit as of commit 0a8f4f0.")[-2:] == [
        "commit",
        "0a8f4f0",
    ]
    assert sentence_tokens("Zedit was built in the 1780s.")[-2:] == ["1780", "s"]
