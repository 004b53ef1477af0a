"""tg-invoke-agent: ask the ReAct agent a question through the gateway.

The answer alone goes to stdout (so it pipes); thoughts, actions, observations
(``-v``), explain events (``-x``) and the trace id go to stderr, each line prefixed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from trustgraph_base.bounds import MAX_ITERATIONS
from trustgraph_cli.options import (
    Gateway,
    bounded_option,
    command,
    explainable_option,
    gateway_options,
    question_option,
    run,
)
from trustgraph_cli.rag_output import (
    ANSWER_INTERRUPTED,
    TraceSeen,
    answer_verdict,
    note_offline,
    note_unsupported,
)

if TYPE_CHECKING:
    from trustgraph_base.schema.agent import AgentResponse

EPILOG = """\b
Examples:
  tg-invoke-agent -q "What is the capital of France?"
  tg-invoke-agent -v -q "Who founded the company?"       # show each thought and tool call
  tg-invoke-agent -x -q "Why?" --max-iterations 5        # also list each trace entity
  tg-invoke-agent -q "Summarise the report" --group document-query > answer.txt
Then: tg-show-explain-trace <the trace id printed on stderr>
"""

PREFIX = {
    "thought": "Thought: ",
    "action": "Action: ",
    "observation": "Observation: ",
    "explain": "Explain: ",
}


def _say(kind: str, text: str) -> None:
    """One streamed event on stderr: a prefix, continuation lines indented under it."""
    from trustgraph_cli.render.text import safe

    prefix = PREFIX[kind]
    lines = safe(text).splitlines() or [""]
    indent = "\n" + " " * len(prefix)
    click.echo(prefix + indent.join(lines), err=True)


@command(epilog=EPILOG)
@question_option
@explainable_option
@click.option(
    "--no-streaming", is_flag=True, help="Wait for the final answer only (nothing for -v/-x)."
)
@bounded_option(
    "--max-iterations",
    MAX_ITERATIONS,
    "At most N steps, the last one an answer (default: the agent's setting, 10).",
)
@click.option(
    "--group", multiple=True, help="Only use the tools named, or in this group (repeatable)."
)
@gateway_options
def main(
    gw: Gateway,
    question: str,
    explainable: bool,
    no_streaming: bool,
    max_iterations: int | None,
    group: tuple[str, ...],
) -> None:
    """Ask the agent QUESTION; print its answer, then the trace id on stderr.

    -v shows each thought, action and observation on stderr as the agent works.
    """
    request: dict[str, Any] = {"question": question, "streaming": not no_streaming}
    if max_iterations is not None:
        request["max_iterations"] = max_iterations
    if group:
        request["group"] = list(group)

    verdict: list[tuple[str, str]] = []  # the conclusion's, when kept though not supported
    seen = TraceSeen()

    async def ask() -> AgentResponse:
        from trustgraph_cli.client import GatewayClient
        from trustgraph_cli.read_answers import AgentAnswer
        from trustgraph_cli.responses import validated

        final: AgentResponse = AgentAnswer()
        async with GatewayClient(gw, note_level=2) as client:
            async for data in client.stream("agent", request):
                resp = validated(AgentAnswer, data, "an agent answer")
                kind = resp.message_type
                if kind == "explain":
                    seen.saw(resp.explain_id)
                    verdict.extend(filter(None, [answer_verdict(resp)]))
                    if explainable:
                        _say(kind, resp.explain_id or "")
                elif kind in PREFIX and gw.verbose:
                    _say(kind, resp.content)
                elif kind == "answer":
                    final = resp
        return final

    from trustgraph_cli.render.text import safe

    final = run(gw, ask, interrupted=ANSWER_INTERRUPTED, trace=seen)
    note_offline(final.model)
    trace = safe(final.explain_id or "")
    if final.finish_reason == "iteration-limit":
        # No answer: nothing on stdout, the reason on stderr, exit 1 (the trace keeps it too).
        reason = safe(final.content).strip().rstrip(".") or "Stopped"
        see = f"tg-show-explain-trace {trace}" if trace else "tg-show-explain-trace"
        raise click.ClickException(
            f"the agent {reason[:1].lower()}{reason[1:]}; raise --max-iterations, "
            f"or see how far it got with {see}"
        )
    click.echo(safe(final.content))
    note_unsupported(verdict[-1] if verdict else None)
    if trace:
        click.echo(f"trace: {trace}", err=True)
