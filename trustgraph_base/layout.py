"""Where a page's characters are: boxes for PDF pages, lines and columns for text.

The decoder keeps one ``PageLayout`` per PDF page beside the page's text (the librarian
stores it as JSON under ``{page}/layout``): character ``i`` of the page text has box
``boxes[i]`` in PDF page coordinates (points, origin bottom left, before the page's
``rotation``), or ``None`` for a character the PDF does not draw (a space or line break
the reader inserted). A page with no text layer has ``text_layer`` false and no boxes:
nothing on it can be located. Text and Markdown need nothing stored: their characters' lines
and columns are counted in the text (the bytes the librarian keeps, read as the decoder reads
them: ``line_col``, ``line_span``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

Box = tuple[float, float, float, float]  # x0, y0, x1, y1
LAYOUT_SUFFIX = "/layout"
_SCALE = 10  # boxes are stored in tenths of a point


def layout_uri(page: str) -> str:
    """Where the librarian keeps a page's layout."""
    return page + LAYOUT_SUFFIX


@dataclass(frozen=True)
class PageLayout:
    """A PDF page's size, rotation and one box (or ``None``) per character of its text."""

    width: float
    height: float
    rotation: int
    boxes: tuple[Box | None, ...]
    text_layer: bool = True

    def to_json(self) -> str:
        """Compact JSON: boxes as integers in tenths of a point, ``0`` for no box."""
        flat: list[int | list[int]] = [
            0 if b is None else [round(v * _SCALE) for v in b] for b in self.boxes
        ]
        return json.dumps(
            {
                "width": self.width,
                "height": self.height,
                "rotation": self.rotation,
                "text_layer": self.text_layer,
                "boxes": flat,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, data: str) -> PageLayout:
        raw = json.loads(data)
        boxes = tuple(
            None if b == 0 else (b[0] / _SCALE, b[1] / _SCALE, b[2] / _SCALE, b[3] / _SCALE)
            for b in raw["boxes"]
        )
        return cls(
            width=float(raw["width"]),
            height=float(raw["height"]),
            rotation=int(raw["rotation"]),
            boxes=boxes,
            text_layer=bool(raw.get("text_layer", True)),
        )

    def span_boxes(self, offset: int, length: int) -> list[Box]:
        """The rectangles covering characters ``offset``… of the page text, one per line run.

        Characters are joined while they sit on one line (their vertical ranges overlap and
        each starts at or right of the previous one: the letters of a ligature share its
        glyph's box); characters without a box are skipped.
        """
        if offset < 0 or length < 0 or offset + length > len(self.boxes):
            raise ValueError(
                f"characters {offset}-{offset + length} are past the end of the page "
                f"({len(self.boxes)} characters)"
            )
        runs: list[list[float]] = []
        prev: Box | None = None
        for box in self.boxes[offset : offset + length]:
            if box is None:
                continue
            if runs and prev is not None and _same_line(runs[-1], box, prev):
                run = runs[-1]
                run[0], run[1] = min(run[0], box[0]), min(run[1], box[1])
                run[2], run[3] = max(run[2], box[2]), max(run[3], box[3])
            else:
                runs.append(list(box))
            prev = box
        return [(r[0], r[1], r[2], r[3]) for r in runs]

    @property
    def shown_size(self) -> tuple[float, float]:
        """The page's width and height in points as shown (its rotation applied)."""
        turned = self.rotation % 180 == 90
        return (self.height, self.width) if turned else (self.width, self.height)

    def shown_boxes(self, offset: int, length: int) -> list[Box]:
        """``span_boxes`` on the page as shown: (left, top, right, bottom) in points from its
        top left corner, the page's rotation applied (what a viewer lays over its image)."""
        size = (self.width, self.height)
        return [shown_rect(b, self.rotation, size) for b in self.span_boxes(offset, length)]


def shown_rect(box: Box, rotation: int, size: tuple[float, float]) -> Box:
    """A box in page coordinates (origin bottom left, before ``rotation``; ``size`` the
    unturned page's) as (left, top, right, bottom) in points on the page as shown."""
    w, h = size
    x0, y0, x1, y1 = box
    corners = [(x0, y0), (x1, y1)]
    turned = {
        0: [(x, h - y) for x, y in corners],
        90: [(y, x) for x, y in corners],
        180: [(w - x, y) for x, y in corners],
        270: [(h - y, w - x) for x, y in corners],
    }[rotation % 360]
    us, vs = [u for u, _ in turned], [v for _, v in turned]
    return min(us), min(vs), max(us), max(vs)


def _same_line(run: list[float], box: Box, prev: Box) -> bool:
    overlap = min(run[3], box[3]) - max(run[1], box[1])
    height = min(run[3] - run[1], box[3] - box[1])
    onward = box[0] >= run[2] - 0.5 * max(height, 1.0) or box[0] >= prev[0]
    return overlap > 0.3 * max(height, 0.1) and onward


def line_col(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and column of character ``offset`` of ``text``."""
    if offset < 0 or offset > len(text):
        raise ValueError(f"offset {offset} is past the end of the text ({len(text)} characters)")
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def line_span(text: str, offset: int, length: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The (line, column) of the first and of the last character of ``offset``… of ``text``
    (1-based; an empty range's last is its first)."""
    if offset + length > len(text):
        raise ValueError(
            f"characters {offset}-{offset + length} are past the end of the text "
            f"({len(text)} characters)"
        )
    return line_col(text, offset), line_col(text, offset + max(length - 1, 0))


def line_place(first: tuple[int, int], last: tuple[int, int]) -> str:
    """``line 3, cols 20–50`` (one line) or ``line 3 col 20 – line 4 col 12``."""
    if first[0] == last[0]:
        cols = f"col {first[1]}" if first[1] == last[1] else f"cols {first[1]}–{last[1]}"
        return f"line {first[0]}, {cols}"
    return f"line {first[0]} col {first[1]} – line {last[0]} col {last[1]}"
