"""The planted claims (bench/answers/planted.py) checked as an answer's claims are: by the
deterministic check the offline engine uses, or by a real model through the ``verify-claims``
judge prompt and reply schema the verification step sends (trustgraph_flow/verify/judge.py),
one claim per call with the evidence around its sentence, over the project's own
chat-completions client (so a server that refuses ``json_schema`` is asked at ``json_object``,
as in the pipeline). A reply that fails its schema leaves the claim unverified: counted apart,
and never as supported."""

from __future__ import annotations

from dataclasses import dataclass

from bench.answers.corpus import Doc
from bench.answers.planted import evidence_around, gold_sentence, plant, scatter
from bench.answers.questions import Question
from bench.answers.skarra import PAGES


@dataclass(frozen=True)
class Planted:
    claims: list[str]
    evidence: list[str]
    questions: list[str]
    planted: list[bool]


@dataclass(frozen=True)
class Verdicts:
    caught: int  # planted claims not judged supported
    planted: int
    flagged: int  # supported claims not judged supported
    supported: int
    unverified: int  # of all claims: no verdict (a reply that failed its schema)
    why: tuple[str, ...] = ()  # the first reasons a claim was left unverified


def doc_text(doc: Doc) -> str:
    if doc.key == "skarra":
        return "\n\n".join(f"{heading}\n{text}" for heading, text in PAGES)
    return doc.path.read_text(encoding="utf-8", errors="replace")


def planted_claims(docs: list[Doc], questions: list[Question]) -> Planted:
    """Each question's gold sentence (supported) and its planted twin, with their evidence."""
    texts = {d.key: doc_text(d) for d in docs}
    out = Planted([], [], [], [])
    for n, q in enumerate(questions):
        sentence = gold_sentence(texts[q.doc], q)
        if sentence is None:
            continue
        around = evidence_around(texts[q.doc], sentence)
        others = questions[n + 1 :] + questions[:n]
        for claim, is_planted in ((sentence, False), (plant(sentence, q, others, around), True)):
            out.claims.append(claim)
            out.evidence.append(around)
            out.questions.append(q.text)
            out.planted.append(is_planted)
    return out


def scattered_claims(docs: list[Doc], questions: list[Question]) -> Planted:
    """Each question's gold sentence with its answer swapped for a word of its kind that
    its evidence states only sentences away (``planted.scatter``): every word of the claim
    is in the evidence, but not together; all planted."""
    texts = {d.key: doc_text(d) for d in docs}
    out = Planted([], [], [], [])
    for q in questions:
        sentence = gold_sentence(texts[q.doc], q)
        if sentence is None:
            continue
        around = evidence_around(texts[q.doc], sentence)
        claim = scatter(sentence, q, around)
        if claim is not None:
            out.claims.append(claim)
            out.evidence.append(around)
            out.questions.append(q.text)
            out.planted.append(True)
    return out


def tally(
    planted: Planted, supported: list[bool], unverified: int = 0, why: tuple[str, ...] = ()
) -> Verdicts:
    pairs = list(zip(supported, planted.planted, strict=True))
    return Verdicts(
        caught=sum(1 for ok, p in pairs if p and not ok),
        planted=sum(planted.planted),
        flagged=sum(1 for ok, p in pairs if not p and not ok),
        supported=len(pairs) - sum(planted.planted),
        unverified=unverified,
        why=why,
    )


def by_heuristic(planted: Planted) -> Verdicts:
    from trustgraph_flow.verify.heuristic import verify_claims

    verdicts = verify_claims(planted.claims, [[e] for e in planted.evidence])
    return tally(planted, [v.supported for v in verdicts])


async def by_model(planted: Planted, base_url: str, model: str) -> Verdicts:
    """Each claim judged by the model at ``base_url`` (an OpenAI-compatible API's base, as
    ``TG_LLM_BASE_URL`` takes it: ``…/v1``)."""
    import aiohttp

    from trustgraph_base.errors import ServiceError
    from trustgraph_base.schema import TextCompletionRequest
    from trustgraph_flow.llm.client import ChatClient
    from trustgraph_flow.structured import BadReply, validate
    from trustgraph_flow.verify.judge import JUDGE_SYSTEM, Judgement, judge_schema, render_judge
    from trustgraph_flow.verify.step import JUDGE_MAX_TOKENS

    supported: list[bool] = []
    unverified = 0
    why: list[str] = []
    async with aiohttp.ClientSession() as session:
        client = ChatClient(session, base_url, model, timeout=900)
        for claim, evidence, question in zip(
            planted.claims, planted.evidence, planted.questions, strict=True
        ):
            items = [{"n": 1, "text": claim, "evidence": [evidence]}]
            request = TextCompletionRequest(
                system=JUDGE_SYSTEM,
                prompt=render_judge(question, items),
                prompt_type="verify-claims",
                variables={"question": question, "claims": items},
                temperature=0.0,
                max_tokens=JUDGE_MAX_TOKENS,
                response_schema=judge_schema(1),
            )
            try:
                reply = validate((await client.complete(request)).text, Judgement)
            except (BadReply, ServiceError) as exc:
                unverified += 1
                why.append(str(exc)[:300])
                supported.append(False)
                continue
            verdict = next((c.verdict for c in reply.claims if c.claim == 1), None)
            unverified += verdict is None
            supported.append(verdict == "supported")
    return tally(planted, supported, unverified, tuple(why[:3]))
