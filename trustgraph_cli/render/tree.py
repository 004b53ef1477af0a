"""A small tree of titled nodes with labelled fields, drawn with ├── └── │ and wrapped to width.

Layout (the SPEC.md document tree)::

    Document: urn:trustgraph:doc:abc123
      Title: "Sample PDF"

      └── Page 1: urn:trustgraph:doc:abc123/p1
          ├── Chunk 0: urn:trustgraph:doc:abc123/p1/c0
          │   Content: "The quick brown fox..." [truncated]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trustgraph_cli.render.style import Style
from trustgraph_cli.render.text import fits_one_line, safe, wrap_field

Paint = tuple[str, ...]
ROOT_INDENT = "  "


@dataclass
class Field:
    """One ``Label: value`` line (wrapped); ``paint`` styles the value when colour is on."""

    label: str
    value: str
    paint: Paint = ()


@dataclass
class Node:
    """A titled node (``Title: value``) with fields under it and child nodes below those."""

    title: str
    value: str = ""
    fields: list[Field] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    title_paint: Paint = ("bold",)
    value_paint: Paint = ("dim",)

    def add(self, label: str, value: str | None, *paint: str) -> None:
        """Add a field unless ``value`` is None or empty."""
        if value:
            self.fields.append(Field(label, value, paint))


def render_tree(root: Node, style: Style) -> list[str]:
    """The lines of a tree: the root's title and fields, a blank line, then its children."""
    lines = render_head(root, style, bool(root.children))
    lines += _children(root.children, ROOT_INDENT, style)
    return lines


def render_head(root: Node, style: Style, children: bool) -> list[str]:
    """The root's title and fields, and the blank line before its ``children`` if it has any."""
    lines = _titled(root, "", "", style)
    lines += _field_lines(root.fields, ROOT_INDENT, style)
    if children:
        lines.append("")
    return lines


def render_child(node: Node, style: Style, *, last: bool) -> list[str]:
    """One child of the root and everything under it (``last``: the root's last child), so a
    long tree can be drawn a child at a time: ``render_head`` then each ``render_child``."""
    return _child(node, ROOT_INDENT, last, style)


def _children(nodes: list[Node], prefix: str, style: Style) -> list[str]:
    lines: list[str] = []
    for n, node in enumerate(nodes):
        lines += _child(node, prefix, n == len(nodes) - 1, style)
    return lines


def _child(node: Node, prefix: str, last: bool, style: Style) -> list[str]:
    inner = prefix + ("    " if last else style.pipe)
    lines = _titled(node, prefix + (style.last if last else style.tee), inner, style)
    lines += _field_lines(node.fields, inner, style)
    lines += _children(node.children, inner, style)
    return lines


def _titled(node: Node, first: str, rest: str, style: Style) -> list[str]:
    width = style.width - len(first)
    if node.value and _one_word(node.value):
        # An entity's URI is never cut across lines, so it can be copied whole: it runs past
        # the width instead (a terminal folds it for the eye, a pipe keeps it one line).
        wrapped = [f"{safe(node.title)}: {node.value}"]
        head = f"{safe(node.title)}: "
    elif node.value:
        wrapped = wrap_field(node.title, node.value, width)
        head = f"{safe(node.title)}: "
    else:
        wrapped, head = wrap_field("", node.title, width), ""
    if not style.color:  # what the painting below gives without colour, in one pass
        out = [rest + line for line in wrapped]
        out[0] = first + (head + wrapped[0][len(head) :] if head else wrapped[0])
        return out
    out = []
    for n, line in enumerate(wrapped):
        if n == 0 and head:
            text = style.paint(head.rstrip(), *node.title_paint) + " "
            text += style.paint(line[len(head) :], *node.value_paint)
        elif n == 0:
            text = style.paint(line, *node.title_paint)
        else:
            text = _paint_body(line, node.value_paint if head else node.title_paint, style)
        out.append((first if n == 0 else rest) + text)
    return out


def _one_word(value: str) -> bool:
    """Whether ``value`` is one word (an IRI): printable (no line break, nothing to escape;
    Python counts every separator but the space as unprintable) and without a space."""
    return value.isprintable() and " " not in value


def _field_lines(fields: list[Field], prefix: str, style: Style) -> list[str]:
    lines = []
    width = style.width - len(prefix)
    if not style.color:  # what the painting below gives without colour, in one pass
        for f in fields:
            if f.label and fits_one_line(f.label, f.value, width):
                lines.append((prefix + f.label + ": " + f.value).rstrip())
                continue
            wrapped = wrap_field(f.label, f.value, width)
            if f.label:
                head = f"{f.label}: "
                wrapped[0] = head + wrapped[0][len(head) :]
            lines += [(prefix + line).rstrip() for line in wrapped]
        return lines
    for f in fields:
        head = f"{f.label}: " if f.label else ""
        for n, line in enumerate(wrap_field(f.label, f.value, width)):
            if n == 0 and head:
                text = (
                    style.paint(f.label + ":", "bold")
                    + " "
                    + style.paint(line[len(head) :], *f.paint)
                )
            else:
                text = _paint_body(line, f.paint, style)
            lines.append((prefix + text).rstrip())
    return lines


def _paint_body(line: str, paint: Paint, style: Style) -> str:
    body = line.lstrip(" ")
    return line[: len(line) - len(body)] + style.paint(body, *paint)
