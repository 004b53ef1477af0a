"""Answer quality on documents with known answers: the offline engine, or the real-model tier.

    python -m bench.bench_answers                      # offline engine, every question
    python -m bench.bench_answers --engine realmodel --written-only --limit 8
    python -m bench.bench_answers --embeddings sentence-transformers   # needs that extra

Loads the corpus (bench/answers/corpus.py: three documents written for this bench, one a PDF,
and Debian's licences and users-and-groups guide, found on this machine) into a fresh
``tg-start``, asks every question (bench/answers/questions.py) of ``tg-invoke-document-rag``
and ``tg-invoke-graph-rag`` as a user does (``--no-streaming``), reads each trace
(``tg-show-explain-trace --format json``) and prints, per engine and RAG kind: answer
accuracy, gold page among the evidence, gold page cited, cited precision, and abstention on
out-of-corpus questions; the held-out third apart. Planted claims (bench/answers/planted.py)
go through the deterministic claim check (trustgraph_flow.verify.heuristic).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.answers.corpus import Doc, documents
from bench.answers.planted import evidence_around, gold_sentence, gold_span, plant
from bench.answers.questions import OUT_OF_CORPUS, QUESTIONS, Question
from bench.answers.scoring import Score, abstained, score, share
from bench.answers.skarra import PAGES
from bench.summary import summary

COLLECTION = "bench-answers"
KINDS = {"document-rag": "tg-invoke-document-rag", "graph-rag": "tg-invoke-graph-rag"}


@dataclass
class Tally:
    scores: list[tuple[Question, Score, str]] = field(default_factory=list)
    out_of_corpus: list[tuple[str, bool, str]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


async def _cli(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    from tests.support.stack import run_cli

    result = await run_cli(*args, env=env, timeout=1800)
    return result.code, result.stdout, result.stderr


async def ask(kind: str, question: str, env: dict[str, str]) -> tuple[str, dict[str, Any] | None]:
    """The answer and its trace's JSON view (None when the command failed)."""
    code, out, err = await _cli(
        KINDS[kind], "--no-streaming", "-C", COLLECTION, "-q", question, env=env
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
        COLLECTION,
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
    ooc: list[str],
    env: dict[str, str] | None = None,
) -> dict[str, Tally]:
    from tests.support.realmodel import llama_server, real_stack
    from tests.support.recording_proxy import recording_proxy

    tallies = {kind: Tally() for kind in KINDS}
    with tempfile.TemporaryDirectory(prefix="bench-answers-") as tmp:
        root = Path(tmp)
        async with _llm(engine, root, llama_server, recording_proxy) as base_url:
            async with real_stack(base_url, root / "stack", env) as stack:
                for doc in docs:
                    code, _, err = await _cli(
                        "tg-load-document",
                        str(doc.path),
                        "--title",
                        doc.key,
                        "-C",
                        COLLECTION,
                        env=stack.env,
                    )
                    print(
                        f"loaded {doc.key} ({doc.origin}): {err.strip().splitlines()[-2:] if code else 'ok'}",
                        flush=True,
                    )
                texts = {d.key: doc_text(d) for d in docs}
                for q in questions:
                    span = None if q.page is not None else gold_span(texts[q.doc], q)
                    for kind, tally in tallies.items():
                        answer, view = await ask(kind, q.text, stack.env)
                        if view is None:
                            tally.failed.append(q.text)
                        tally.scores.append((q, score(q, answer, view, span), answer))
                for text in ooc:
                    for kind, tally in tallies.items():
                        answer, view = await ask(kind, text, stack.env)
                        tally.out_of_corpus.append((text, abstained(answer, view), answer))
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


def doc_text(doc: Doc) -> str:
    if doc.key == "skarra":
        return "\n\n".join(f"{heading}\n{text}" for heading, text in PAGES)
    return doc.path.read_text(encoding="utf-8", errors="replace")


def planted_figures(docs: list[Doc], questions: list[Question]) -> tuple[int, int, int, int]:
    """(planted caught, planted, supported wrongly flagged, supported) by the claim check."""
    from trustgraph_flow.verify.heuristic import verify_claims

    texts = {d.key: doc_text(d) for d in docs}
    claims: list[str] = []
    evidence: list[list[str]] = []
    planted_at: list[bool] = []
    for n, q in enumerate(questions):
        sentence = gold_sentence(texts[q.doc], q)
        if sentence is None:
            continue
        around = evidence_around(texts[q.doc], sentence)
        others = questions[n + 1 :] + questions[:n]
        for claim, is_planted in ((sentence, False), (plant(sentence, q, others, around), True)):
            claims.append(claim)
            evidence.append([around])
            planted_at.append(is_planted)
    verdicts = verify_claims(claims, evidence)
    caught = sum(1 for v, p in zip(verdicts, planted_at, strict=True) if p and not v.supported)
    flagged = sum(1 for v, p in zip(verdicts, planted_at, strict=True) if not p and not v.supported)
    n_planted = sum(planted_at)
    return caught, n_planted, flagged, len(planted_at) - n_planted


def report(engine: str, tallies: dict[str, Tally], verbose: bool) -> None:
    for kind, tally in tallies.items():
        for part, keep in (("tuned", False), ("held-out", True)):
            rows = [(q, s) for q, s, _ in tally.scores if q.held_out == keep]
            n = len(rows)
            cited_on = sum(s.cited_on_gold for _, s in rows)
            cited_all = sum(s.cited_total for _, s in rows)
            right = sum(s.right for _, s in rows)
            print(
                f"{engine:17} {kind:12} {part:8} right {share(right, n):>12}  "
                f"gold in evidence {share(sum(s.in_evidence for _, s in rows), n):>12}  "
                f"gold cited {share(sum(s.cited for _, s in rows), n):>12}  "
                f"cited precision {share(cited_on, cited_all):>12}  "
                f"abstained {share(sum(s.abstained for _, s in rows), n):>10}"
            )
            summary(
                f"answers: {engine} {kind} {part} right",
                share(right, n),
                "-",
                f"cited precision {share(cited_on, cited_all)}",
            )
        ooc = tally.out_of_corpus
        said = sum(1 for _, a, _ in ooc if a)
        print(f"{engine:17} {kind:12} out-of-corpus abstained {share(said, len(ooc))}")
        summary(f"answers: {engine} {kind} out-of-corpus abstained", share(said, len(ooc)), "-", "")
        if tally.failed:
            print(f"  {len(tally.failed)} questions failed: {tally.failed[:3]}")
        if verbose:
            for q, s, answer in tally.scores:
                if not q.held_out and not s.right:
                    print(f"    wrong: {q.text!r} -> {answer[:150]!r}")
            for text, a, answer in ooc:
                if not a:
                    print(f"    answered out of corpus: {text!r} -> {answer[:150]!r}")


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
        keys = {d.key for d in docs}
        questions = [q for q in QUESTIONS if q.doc in keys]
        ooc = OUT_OF_CORPUS
        if args.limit:
            step = -(-len(questions) // args.limit)  # evenly spread over the documents
            questions, ooc = questions[::step][: args.limit], ooc[: max(1, args.limit // 3)]
        caught, planted, flagged, supported = planted_figures(docs, questions)
        print(
            f"claim check (heuristic): planted unsupported caught {share(caught, planted)}, "
            f"supported wrongly flagged {share(flagged, supported)}"
        )
        summary(
            "answers: planted unsupported caught",
            share(caught, planted),
            "-",
            f"false alarms {share(flagged, supported)}",
        )
        env = {"TG_EMBEDDINGS_BACKEND": args.embeddings}
        tallies = asyncio.run(measure(args.engine, docs, questions, ooc, env))
    report(f"{args.engine}/{args.embeddings.split('-')[0]}", tallies, args.verbose)


if __name__ == "__main__":
    main()
