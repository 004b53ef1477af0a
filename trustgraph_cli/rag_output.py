"""What tg-invoke-graph-rag and tg-invoke-document-rag share: ask, stream, print the trace id.

The answer alone goes to stdout (so it pipes); explain events (``-x``) and the trace id go
to stderr.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from trustgraph_cli.options import Gateway, run

if TYPE_CHECKING:
    from trustgraph_base.schema.agent import AgentResponse
    from trustgraph_base.schema.rag import RagResponse

OFFLINE_MODEL = "offline"  # the model name the offline engine reports
OFFLINE_NOTE = (
    "note: answered by the offline engine (no LLM is configured); to use a real one, start "
    "the stack with TG_LLM_BASE_URL and TG_LLM_MODEL set (README: Using a real LLM)"
)


# What Ctrl-C during a question leaves: the services answer it whether or not we wait.
ANSWER_INTERRUPTED = (
    "Interrupted: the server may still finish the answer and record its trace "
    "(see 'tg-list-explain-traces')."
)


def note_offline(model: str | None) -> None:
    """One stderr line when the answer came from the offline engine."""
    if model == OFFLINE_MODEL:
        click.echo(OFFLINE_NOTE, err=True)


def answer_verdict(resp: RagResponse | AgentResponse) -> tuple[str, str] | None:
    """A kept answer's verdict and why, from a verification stage's explain event (a RAG
    answer's, or an agent's conclusion's; None when there is none, or when the answer was
    withheld: the answer itself says so then)."""
    from trustgraph_base.provenance.verification import verdict_of

    found = verdict_of(resp.explain_triples)
    return None if found is None or found[2] else (found[0], found[1])


def note_unsupported(verdict: tuple[str, str] | None) -> None:
    """One stderr line when the answer given is not (fully) supported by what it cites."""
    if verdict is None or verdict[0] == "supported":
        return
    from trustgraph_cli.render.text import safe

    word = "UNSUPPORTED" if verdict[0] == "unsupported" else "partly supported"
    click.echo(f"verification: {word}: {safe(verdict[1])}", err=True)


class TraceSeen:
    """The trace id of the first explain event streamed (what a lost connection names)."""

    def __init__(self) -> None:
        self.id = ""

    def saw(self, explain_id: str | None) -> None:
        from trustgraph_base.provenance.uris import trace_root
        from trustgraph_cli.render.text import safe

        self.id = self.id or safe(trace_root(explain_id or "") or "")

    def __call__(self) -> str:
        return self.id


class AnswerLine:
    """The streamed answer on stdout; a line of stderr never lands glued to its end.

    On a terminal (stdout and stderr on the same screen) an answer line still open when
    something is printed to stderr is ended first. Piped, stdout gets the answer as it is.
    """

    def __init__(self) -> None:
        self.open = False
        self.printed = False
        try:
            self.terminal = sys.stdout.isatty()
        except (AttributeError, ValueError):
            self.terminal = False

    def write(self, text: str) -> None:
        click.echo(text, nl=False)
        sys.stdout.flush()
        self.printed = True
        self.open = not text.endswith("\n")

    def before_stderr(self) -> None:
        if self.open and self.terminal:
            click.echo()
            self.open = False

    def close(self) -> None:
        """End the answer with a newline (unless the terminal line was ended already)."""
        if self.printed and (self.open or not self.terminal):
            click.echo()


def ask_rag(
    gw: Gateway, service: str, request: dict[str, Any], *, explainable: bool, streaming: bool
) -> None:
    """Send one RAG request; print answer pieces as they come, explain events, then the trace id."""
    from trustgraph_cli.render.text import safe

    body = {**request, "streaming": streaming}
    verdict: tuple[str, str] | None = None
    seen = TraceSeen()

    async def ask() -> RagResponse:
        from trustgraph_cli.client import GatewayClient
        from trustgraph_cli.read_answers import RagAnswer
        from trustgraph_cli.responses import validated

        nonlocal verdict
        final: RagResponse = RagAnswer()
        line = AnswerLine()
        async with GatewayClient(gw) as client:
            async for data in client.stream(service, body):
                resp = validated(RagAnswer, data, "an answer")
                if resp.message_type == "explain":
                    seen.saw(resp.explain_id)
                    verdict = verdict or answer_verdict(resp)
                    if explainable:
                        line.before_stderr()
                        click.echo(f"Explain: {safe(resp.explain_id or '')}", err=True)
                    continue
                if resp.response:
                    line.write(safe(resp.response))
                if resp.end_of_stream:
                    final = resp
        line.close()
        return final

    final = run(gw, ask, interrupted=ANSWER_INTERRUPTED, trace=seen)
    note_unsupported(verdict)
    note_offline(final.model)
    if final.explain_id:
        click.echo(f"trace: {safe(final.explain_id)}", err=True)
