"""Lines and columns of a text document's span, as the CLI and the viewer print them."""

from __future__ import annotations

import pytest

from trustgraph_base.layout import line_place, line_span

TEXT = "Capitals\n\nParis is the capital of France.\r\nRome is the capital\nof Italy."


def test_a_span_on_one_line_gives_its_columns() -> None:
    start = TEXT.index("Paris")
    first, last = line_span(TEXT, start, len("Paris is the capital of France."))
    assert (first, last) == ((3, 1), (3, 31))
    assert line_place(first, last) == "line 3, cols 1–31"
    assert line_place(*line_span(TEXT, start, 1)) == "line 3, col 1"


def test_a_span_over_lines_names_both_ends() -> None:
    start = TEXT.index("the capital\nof")
    span = line_span(TEXT, start, len("the capital\nof Italy."))
    assert span == ((4, 9), (5, 9))
    assert line_place(*span) == "line 4 col 9 – line 5 col 9"


def test_a_span_past_the_text_is_refused() -> None:
    with pytest.raises(ValueError, match="past the end of the text"):
        line_span(TEXT, len(TEXT) - 2, 5)
