"""DocumentRAG's retrieval with each embeddings backend, on bench_answers' corpus and questions.

    python -m bench.bench_retrieval     # hashing; and sentence-transformers when installed

In process, no stack: the documents are chunked as the chunker does (1,000 characters, 100
shared; a PDF page by page), every chunk and question embedded by the backend
(``embeddings.processor.open_embedder``), the 5 nearest chunks by cosine taken (the vector
index's exact search, DocumentRAG's default ``doc_limit``) and the offline engine asked to
answer from them. Per backend: the gold place among the 5, ranked first, the answer right,
and the out-of-corpus questions abstained. sentence-transformers needs its extra
(``pip install -e '.[sentence-transformers]'``); without it that row says so.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from bench.answers.corpus import documents
from bench.answers.planted import gold_span
from bench.answers.questions import OUT_OF_CORPUS, QUESTIONS, Question
from bench.answers.scoring import share
from bench.answers.skarra import PAGES
from bench.summary import summary
from trustgraph_flow.chunker import split
from trustgraph_flow.embeddings.processor import Settings, open_embedder
from trustgraph_flow.llm import offline

Chunk = tuple[str, int | None, int, int, str]  # document, page, start, end, text
TOP = 5


def chunks_of(work: Path) -> tuple[list[Chunk], dict[str, str]]:
    docs, notes = documents(work)
    for note in notes:
        print(note)
    out: list[Chunk] = []
    texts: dict[str, str] = {}
    for doc in docs:
        pages: list[tuple[int | None, str]]
        if doc.key == "skarra":
            pages = [(n, f"{heading}\n{text}") for n, (heading, text) in enumerate(PAGES, 1)]
        else:
            texts[doc.key] = doc.path.read_text(encoding="utf-8", errors="replace")
            pages = [(None, texts[doc.key])]
        for page, text in pages:
            for sp in split(text, 1000, 100):
                end = sp.offset + sp.length
                out.append((doc.key, page, sp.offset, end, text[sp.offset : end]))
    return out, texts


def _gold(chunk: Chunk, q: Question, span: tuple[int, int] | None) -> bool:
    doc, page, start, end, _ = chunk
    if doc != q.doc or (q.page is not None and page != q.page):
        return False
    return span is None or (start < span[1] and span[0] < end)


def measure(backend: str, chunks: list[Chunk], texts: dict[str, str]) -> None:
    try:
        embedder = open_embedder(Settings(embeddings_backend=backend))
    except Exception as exc:  # the extra is missing: say so
        print(f"{backend}: not measured ({exc})")
        summary(f"retrieval: {backend}", "skipped", "-", str(exc)[:80])
        return
    matrix = np.asarray(embedder.embed([c[4] for c in chunks]))
    questions = [q for q in QUESTIONS if q.doc in {c[0] for c in chunks}]
    asked = np.asarray(embedder.embed([q.text for q in questions] + OUT_OF_CORPUS))
    for held in (False, True):
        found = first = right = n = 0
        for i, q in enumerate(questions):
            if q.held_out != held:
                continue
            span = None if q.page is not None else gold_span(texts[q.doc], q)
            top = np.argsort(-(matrix @ asked[i]), kind="stable")[:TOP]
            variables = {"question": q.text, "chunks": [chunks[j][4] for j in top]}
            answer = json.loads(
                offline.complete("document-rag-answer", variables, structured=True)
            )["answer"]
            n += 1
            found += any(_gold(chunks[j], q, span) for j in top)
            first += _gold(chunks[top[0]], q, span)
            right += answer != offline.NO_DOCUMENT_ANSWER and any(
                g.casefold() in answer.casefold() for g in q.gold
            )
        part = "held-out" if held else "tuned"
        print(
            f"{embedder.model:40} {part:8} gold in top {TOP} {share(found, n):>12}  "
            f"first {share(first, n):>12}  DocumentRAG right {share(right, n):>12}"
        )
        summary(
            f"retrieval: {embedder.model} {part}", share(found, n), "-", f"right {share(right, n)}"
        )
    said = 0
    for k, text in enumerate(OUT_OF_CORPUS):
        top = np.argsort(-(matrix @ asked[len(questions) + k]), kind="stable")[:TOP]
        variables = {"question": text, "chunks": [chunks[j][4] for j in top]}
        said += offline.complete("document-rag-answer", variables) == offline.NO_DOCUMENT_ANSWER
    print(f"{embedder.model:40} out-of-corpus abstained {share(said, len(OUT_OF_CORPUS))}")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-retrieval-") as tmp:
        chunks, texts = chunks_of(Path(tmp))
        for backend in ("hashing", "sentence-transformers"):
            measure(backend, chunks, texts)


if __name__ == "__main__":
    main()
