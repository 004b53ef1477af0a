"""DocumentRAG's prompt: its system text and the user message an HTTP LLM sees (the offline
engine reads the request's variables instead); a user's own template replaces both
(``trustgraph_flow.prompts``)."""

from __future__ import annotations

__all__ = ["SYSTEM", "render_prompt"]

SYSTEM = (
    "You answer questions using only the document excerpts given. If they do not "
    "contain the answer, say so. Be concise."
)


def render_prompt(question: str, chunks: list[str]) -> str:
    """The prompt an HTTP LLM sees (the offline engine reads the variables instead)."""
    excerpts = "\n\n".join(f"[{n}] {text}" for n, text in enumerate(chunks, start=1))
    return f"Document excerpts:\n\n{excerpts}\n\nQuestion: {question}\n\nAnswer:"
