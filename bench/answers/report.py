"""bench_answers' figures as printed: per engine, RAG kind and part (tuned / held out)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.answers.corpus import Doc
from bench.answers.judged import (
    Planted,
    Verdicts,
    by_heuristic,
    planted_claims,
    scattered_claims,
)
from bench.answers.questions import Question
from bench.answers.scoring import Score, share
from bench.summary import summary


@dataclass
class Tally:
    scores: list[tuple[Question, Score, str]] = field(default_factory=list)
    # question, abstained, answer, development set ("" for the bench's own)
    out_of_corpus: list[tuple[str, bool, str, str]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def print_planted(engine: str, v: Verdicts) -> None:
    unverified = f", unverified {v.unverified}" if v.unverified else ""
    print(
        f"claim check ({engine}): planted unsupported caught {share(v.caught, v.planted)}, "
        f"supported wrongly flagged {share(v.flagged, v.supported)}{unverified}",
        flush=True,
    )
    for reason in v.why:
        print(f"    unverified: {reason}", flush=True)
    summary(
        f"answers: {engine} planted unsupported caught",
        share(v.caught, v.planted),
        "-",
        f"false alarms {share(v.flagged, v.supported)}{unverified}",
    )


def heuristic_figures(docs: list[Doc], questions: list[Question]) -> Planted:
    """The bench's own questions' planted claims and its scattered ones through the
    deterministic check, printed; the planted ones (for a real model to judge)."""
    own = [q for q in questions if not q.dev]
    planted = planted_claims(docs, own)
    print_planted("heuristic", by_heuristic(planted))
    print_planted("heuristic, scattered", by_heuristic(scattered_claims(docs, own)))
    return planted


def _part(q: Question) -> str:
    return q.dev or ("held-out" if q.held_out else "tuned")


def report(engine: str, tallies: dict[str, Tally], verbose: bool) -> None:
    for kind, tally in tallies.items():
        for part in ("tuned", "held-out", "dev", "dev19", "near21", "recall22"):
            rows = [(q, s) for q, s, _ in tally.scores if _part(q) == part]
            n = len(rows)
            if not n:
                continue
            cited_on = sum(s.cited_on_gold for _, s in rows)
            cited_all = sum(s.cited_total for _, s in rows)
            right = sum(s.right for _, s in rows)
            print(
                f"{engine:17} {kind:12} {part:8} right {share(right, n):>12}  "
                f"gold in evidence {share(sum(s.in_evidence for _, s in rows), n):>12}  "
                f"gold cited {share(sum(s.cited for _, s in rows), n):>12}  "
                f"cited precision {share(cited_on, cited_all):>12}  "
                f"abstained {share(sum(s.abstained for _, s in rows), n):>10}  "
                f"gold cited but withheld {sum(s.cited and s.abstained for _, s in rows)}"
            )
            summary(
                f"answers: {engine} {kind} {part} right",
                share(right, n),
                "-",
                f"cited precision {share(cited_on, cited_all)}",
            )
        for part in ("", "dev19", "near21", "recall22"):
            ooc = [row for row in tally.out_of_corpus if row[3] == part]
            said = sum(1 for _, a, _, _ in ooc if a)
            name = f"{part} out-of-corpus".strip()
            if ooc:  # none asked where no document of that set is loaded
                print(f"{engine:17} {kind:12} {name} abstained {share(said, len(ooc))}")
                summary(
                    f"answers: {engine} {kind} {name} abstained", share(said, len(ooc)), "-", ""
                )
        if tally.failed:
            print(f"  {len(tally.failed)} questions failed: {tally.failed[:3]}")
        if verbose:
            for q, s, answer in tally.scores:
                if not q.held_out and not s.right:
                    where = ", gold cited" if s.cited else ", gold in evidence" * s.in_evidence
                    print(f"    wrong ({_part(q)}{where}): {q.text!r} -> {answer[:150]!r}")
                elif not q.held_out and not s.cited:
                    where = "in evidence" if s.in_evidence else "not retrieved"
                    print(
                        f"    gold not cited ({_part(q)}, {where}): {q.text!r} -> {answer[:150]!r}"
                    )
            for text, a, answer, _ in tally.out_of_corpus:
                if not a:
                    print(f"    answered out of corpus: {text!r} -> {answer[:150]!r}")
