"""What tg-invoke-graph-rag and tg-invoke-document-rag share: ask, stream, print the trace id.

The answer alone goes to stdout (so it pipes); explain events (``-x``) and the trace id go
to stderr.
"""

from __future__ import annotations

from typing import Any

import click

from trustgraph_cli.options import Gateway, run

OFFLINE_MODEL = "offline"  # the model name the offline engine reports
OFFLINE_NOTE = (
    "note: answered by the offline engine (no LLM is configured); to use a real one, start "
    "the stack with TG_LLM_BASE_URL and TG_LLM_MODEL set (README: Using a real LLM)"
)


def note_offline(final: dict[str, Any]) -> None:
    """One stderr line when the answer came from the offline engine."""
    if final.get("model") == OFFLINE_MODEL:
        click.echo(OFFLINE_NOTE, err=True)


def check_question(question: str) -> None:
    if not question.strip():
        raise click.UsageError("the question is empty: pass it with -q")


def ask_rag(
    gw: Gateway, service: str, request: dict[str, Any], *, explainable: bool, streaming: bool
) -> None:
    """Send one RAG request; print answer pieces as they come, explain events, then the trace id."""
    from trustgraph_cli.render.text import safe

    body = {**request, "streaming": streaming}

    async def ask() -> dict[str, Any]:
        from trustgraph_cli.client import GatewayClient

        final: dict[str, Any] = {}
        printed = False
        async with GatewayClient(gw) as client:
            async for resp in client.stream(service, body):
                if resp.get("message_type") == "explain":
                    if explainable:
                        click.echo(f"Explain: {safe(resp.get('explain_id', ''))}", err=True)
                    continue
                text = resp.get("response", "")
                if text:
                    click.echo(safe(text), nl=False)
                    printed = True
                if resp.get("end_of_stream", True):
                    final = resp
        if printed:
            click.echo()
        return final

    final = run(gw, ask)
    note_offline(final)
    if final.get("explain_id"):
        click.echo(f"trace: {safe(final['explain_id'])}", err=True)
