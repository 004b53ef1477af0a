"""Answer quality on documents with known answers: the offline engine, or the real-model tier.

    python -m bench.bench_answers                      # offline engine, every question
    python -m bench.bench_answers --engine realmodel --written-only --limit 8
    python -m bench.bench_answers --engine realmodel --written-only --limit 8 --planted-only
    python -m bench.bench_answers --embeddings sentence-transformers   # needs that extra
    python -m bench.bench_answers --dev-only -v         # the development set alone
    python -m bench.bench_answers --dev-only dev19 -v   # the second one, with its out-of-corpus
    python -m bench.bench_answers --dev-only near21 -v  # session 21's near-topic questions
    python -m bench.bench_answers --dev-only recall22 -v  # session 22's four unseen READMEs

Loads the corpus (bench/answers/corpus.py: four documents written for this bench, one a PDF,
and Debian's licences and users-and-groups guide, found on this machine) into a fresh
``tg-start``, asks every question (bench/answers/questions.py) of ``tg-invoke-document-rag``
and ``tg-invoke-graph-rag`` as a user does (``--no-streaming``), reads each trace
(``tg-show-explain-trace --format json``) and prints, per engine and RAG kind: answer
accuracy, gold page among the evidence, gold page cited, cited precision, and abstention on
out-of-corpus questions; the held-out third and the development sets apart. Planted claims
(bench/answers/planted.py; the scattered ones: words the evidence holds, not together) go
through the deterministic claim check (trustgraph_flow.verify.heuristic) and, with
``--engine realmodel``, through the model as judge (bench/answers/judged.py) too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from bench.answers.corpus import Doc, documents
from bench.answers.dev19_questions import DEV19_COLLECTION, DEV19_OUT_OF_CORPUS
from bench.answers.dev_questions import DEV_COLLECTION
from bench.answers.judged import (
    Planted,
    by_model,
    doc_text,
)
from bench.answers.near21_questions import NEAR21_COLLECTION, NEAR21_OUT_OF_CORPUS
from bench.answers.planted import gold_span
from bench.answers.questions import OUT_OF_CORPUS, QUESTIONS, Question
from bench.answers.recall22_questions import RECALL22_COLLECTION, RECALL22_OUT_OF_CORPUS
from bench.answers.report import Tally, heuristic_figures, print_planted, report
from bench.answers.scoring import abstained, score
from bench.summary import summary

COLLECTION = "bench-answers"
# a development set's name ("" for the bench's own): its collection
COLLECTIONS = {
    "": COLLECTION,
    "dev": DEV_COLLECTION,
    "dev19": DEV19_COLLECTION,
    "near21": NEAR21_COLLECTION,
    "recall22": RECALL22_COLLECTION,
}
KINDS = {"document-rag": "tg-invoke-document-rag", "graph-rag": "tg-invoke-graph-rag"}


async def _cli(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    from tests.support.stack import run_cli

    result = await run_cli(*args, env=env, timeout=1800)
    return result.code, result.stdout, result.stderr


async def ask(
    kind: str, question: str, env: dict[str, str], collection: str = COLLECTION
) -> tuple[str, dict[str, Any] | None]:
    """The answer and its trace's JSON view (None when the command failed)."""
    code, out, err = await _cli(
        KINDS[kind], "--no-streaming", "-C", collection, "-q", question, env=env
    )
    if code != 0:
        return f"(failed: {err.strip().splitlines()[-1] if err.strip() else code})", None
    trace = next(
        (
            line.removeprefix("trace: ")
            for line in reversed(err.splitlines())
            if line.startswith("trace: ")
        ),
        "",
    )
    if not trace:
        return out.strip(), None
    code, view, _ = await _cli(
        "tg-show-explain-trace",
        trace,
        "-C",
        collection,
        "--show-provenance",
        "--format",
        "json",
        env=env,
    )
    return out.strip(), (json.loads(view) if code == 0 else None)


async def measure(
    engine: str,
    docs: list[Doc],
    questions: list[Question],
    ooc: list[tuple[str, str]],
    env: dict[str, str] | None = None,
    planted: Planted | None = None,
) -> dict[str, Tally]:
    """Each question asked of each RAG kind; with a real model, ``planted`` claims judged by
    it first (the server idle)."""
    from tests.support.realmodel import MODEL_NAME, llama_server, real_stack
    from tests.support.recording_proxy import recording_proxy

    tallies = {kind: Tally() for kind in KINDS}
    with tempfile.TemporaryDirectory(prefix="bench-answers-") as tmp:
        root = Path(tmp)
        async with _llm(engine, root, llama_server, recording_proxy) as base_url:
            if base_url is not None and planted is not None:
                print_planted(f"{engine} judge", await by_model(planted, base_url, MODEL_NAME))
            if not questions and not ooc:
                return tallies
            async with real_stack(base_url, root / "stack", env) as stack:
                for doc in docs:
                    code, _, err = await _cli(
                        "tg-load-document",
                        str(doc.path),
                        "--title",
                        doc.key,
                        "-C",
                        doc.collection,
                        env=stack.env,
                    )
                    print(
                        f"loaded {doc.key} ({doc.origin}): {err.strip().splitlines()[-2:] if code else 'ok'}",
                        flush=True,
                    )
                texts = {d.key: doc_text(d) for d in docs}
                where = {d.key: d.collection for d in docs}
                for q in questions:
                    span = None if q.page is not None else gold_span(texts[q.doc], q)
                    for kind, tally in tallies.items():
                        answer, view = await ask(kind, q.text, stack.env, where[q.doc])
                        if view is None:
                            tally.failed.append(q.text)
                        tally.scores.append((q, score(q, answer, view, span), answer))
                for part, text in ooc:
                    for kind, tally in tallies.items():
                        answer, view = await ask(kind, text, stack.env, COLLECTIONS[part])
                        tally.out_of_corpus.append((text, abstained(answer, view), answer, part))
    return tallies


class _llm:
    """No server for the offline engine; SmolLM2 behind the recording proxy for the real one."""

    def __init__(self, engine: str, root: Path, server: Any, proxy: Any) -> None:
        self.engine, self.root, self.server, self.proxy = engine, root, server, proxy
        self.stack: list[Any] = []

    async def __aenter__(self) -> str | None:
        if self.engine == "offline":
            return None
        upstream = self.server(self.root / "server.log")
        url = await upstream.__aenter__()
        self.stack.append(upstream)
        proxy = self.proxy(url)
        recorded = await proxy.__aenter__()
        self.stack.append(proxy)
        return str(recorded.base_url)

    async def __aexit__(self, *exc: object) -> None:
        while self.stack:
            await self.stack.pop().__aexit__(None, None, None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["offline", "realmodel"], default="offline")
    parser.add_argument(
        "--written-only", action="store_true", help="only the documents written for the bench"
    )
    parser.add_argument(
        "--limit",
        type=int,
        default=0,
        help="ask only N questions, spread over the documents (and N/3 out of corpus)",
    )
    parser.add_argument("--quick", action="store_true", help="the same as --limit 12")
    parser.add_argument(
        "--dev-only",
        nargs="?",
        const="dev",
        choices=["dev", "dev19", "near21", "recall22"],
        help="only a development set (dev when not named) and its out-of-corpus questions",
    )
    parser.add_argument(
        "--planted-only",
        action="store_true",
        help="only the planted claims (with --engine realmodel: judged by the model)",
    )
    parser.add_argument(
        "--embeddings",
        choices=["hashing", "sentence-transformers"],
        default="hashing",
        help="the embeddings backend (sentence-transformers: its extra must be installed)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list the wrong tuned answers")
    args = parser.parse_args()
    if args.quick and not args.limit:
        args.limit = 12
    if args.engine == "realmodel":
        from tests.support.realmodel import missing

        reason = missing()
        if reason:
            print(reason)
            summary("answers: real model", "skipped", "-", reason)
            return
    with tempfile.TemporaryDirectory(prefix="bench-answers-docs-") as tmp:
        docs, notes = documents(Path(tmp))
        for note in notes:
            print(note)
        if args.written_only:
            docs = [d for d in docs if d.origin == "written"]
        if args.dev_only:
            docs = [d for d in docs if d.collection == COLLECTIONS[args.dev_only]]
        keys = {d.key for d in docs}
        questions = [q for q in QUESTIONS if q.doc in keys]
        ooc = [("", t) for t in OUT_OF_CORPUS] + [("dev19", t) for t in DEV19_OUT_OF_CORPUS]
        ooc += [("near21", t) for t in NEAR21_OUT_OF_CORPUS]
        ooc += [("recall22", t) for t in RECALL22_OUT_OF_CORPUS]
        loaded = {d.collection for d in docs}  # out-of-corpus questions only where documents are
        ooc = [(part, t) for part, t in ooc if COLLECTIONS[part] in loaded]
        if args.limit:
            step = -(-len(questions) // args.limit)  # evenly spread over the documents
            questions, ooc = questions[::step][: args.limit], ooc[: max(1, args.limit // 3)]
        planted = heuristic_figures(docs, questions)
        judged = planted if args.engine == "realmodel" else None
        if args.planted_only:
            questions, ooc = [], []
        env = {"TG_EMBEDDINGS_BACKEND": args.embeddings}
        tallies = asyncio.run(measure(args.engine, docs, questions, ooc, env, judged))
    if not args.planted_only:
        report(f"{args.engine}/{args.embeddings.split('-')[0]}", tallies, args.verbose)


if __name__ == "__main__":
    main()
