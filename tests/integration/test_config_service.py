"""The configuration and flow services through the gateway, driven by the official client's
commands (prompts, tools, config items, flows) and by REST for what it cannot say (users)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aiohttp

from tests.support.official import official_bin, run_official
from tests.support.stack import CliResult, Stack, stack_fixture
from trustgraph_flow.config import processor as config

stack = stack_fixture([config.proc])


async def official(stack: Stack, name: str, *args: str) -> CliResult:
    return await run_official(official_bin(), stack, name, *args)


async def rest(stack: Stack, body: dict[str, Any]) -> dict[str, Any]:
    async with (
        aiohttp.ClientSession() as http,
        http.post(stack.url + "api/v1/config", json=body) as resp,
    ):
        assert resp.status == 200
        found: dict[str, Any] = await resp.json()
        return found


async def test_prompts_shown_set_and_refused(stack: Stack) -> None:
    shown = await official(stack, "tg-show-prompts")
    assert shown.code == 0 and "graph-rag-select:" in shown.stdout, shown
    assert "{{question}}" in shown.stdout and "Choose at most" in shown.stdout

    template = "Known facts:\n{{facts}}\n\nThe question: {{question}}"
    done = await official(stack, "tg-set-prompt", "--id", "graph-rag-answer", "--prompt", template)
    assert "Prompt set." in done.stdout, done
    shown = await official(stack, "tg-show-prompts")
    assert "Known facts:" in shown.stdout

    # a template that names a variable the prompt does not have, or leaves one out: refused
    bad = await official(
        stack, "tg-set-prompt", "--id", "graph-rag-answer", "--prompt", "{{facts}} {{colour}}"
    )
    assert "unknown variable(s) {{colour}}" in bad.stdout, bad
    bad = await official(
        stack, "tg-set-prompt", "--id", "graph-rag-answer", "--prompt", "{{facts}}"
    )
    assert "missing variable(s) {{question}}" in bad.stdout, bad
    bad = await official(stack, "tg-set-prompt", "--id", "nonesuch", "--prompt", "hi")
    assert "no processor uses this prompt" in bad.stdout, bad
    shown = await official(stack, "tg-show-prompts")
    assert "Known facts:" in shown.stdout and "colour" not in shown.stdout  # the old one kept

    done = await official(stack, "tg-set-prompt", "--system", "Answer in French.")
    assert "System prompt set." in done.stdout
    assert "Answer in French." in (await official(stack, "tg-show-prompts")).stdout


async def test_tools_shown_set_refused_and_deleted(stack: Stack) -> None:
    shown = await official(stack, "tg-show-tools")
    assert (
        shown.code == 0 and "knowledge-query" in shown.stdout and "document-query" in shown.stdout
    )
    done = await official(
        stack,
        "tg-set-tool",
        *("--id", "facts", "--name", "facts", "--type", "knowledge-query"),
        *("--description", "Facts from the graph.", "--argument", "question:string:The question"),
    )
    assert "Tool set." in done.stdout, done
    assert "Facts from the graph." in (await official(stack, "tg-show-tools")).stdout
    bad = await official(
        stack,
        "tg-set-tool",
        *("--id", "m", "--name", "m", "--type", "mcp-tool", "--description", "d"),
        *("--mcp-tool", "x"),
    )
    assert "tool type 'mcp-tool' names no service here" in bad.stdout, bad
    gone = await official(stack, "tg-delete-tool", "--id", "facts")
    assert "Tool 'facts' deleted successfully." in gone.stdout, gone
    gone = await official(stack, "tg-delete-tool", "--id", "text-completion")  # a default
    assert "deleted successfully" in gone.stdout, gone
    shown = await official(stack, "tg-show-tools")
    assert "Facts from the graph." not in shown.stdout
    assert "knowledge-query" in shown.stdout and "Ask the language model" not in shown.stdout


async def test_config_items_per_user_and_bounded(stack: Stack) -> None:
    put = await official(stack, "tg-put-config-item", "--type", "t", "--key", "k", "--value", "v1")
    assert put.code == 0, put
    got = await official(stack, "tg-get-config-item", "--type", "t", "--key", "k")
    assert got.stdout.strip() == "v1", got
    listed = await official(stack, "tg-list-config-items", "--type", "t")
    assert "k" in listed.stdout
    everything = await official(stack, "tg-show-config")
    assert "Version:" in everything.stdout and '"k": "v1"' in everything.stdout, everything

    # another user sees none of it (open gateway: the request's user is taken as written)
    other = await rest(stack, {"operation": "getvalues", "type": "t", "user": "alice"})
    assert other["values"] == []
    await rest(
        stack,
        {"operation": "put", "user": "alice", "values": [{"type": "t", "key": "k", "value": "a"}]},
    )
    mine = await official(stack, "tg-get-config-item", "--type", "t", "--key", "k")
    assert mine.stdout.strip() == "v1"

    huge = await rest(
        stack, {"operation": "put", "values": [{"type": "t", "key": "k", "value": "x" * 70_000}]}
    )
    assert huge["error"]["type"] == "bad-request" and "at most 65536" in huge["error"]["message"]
    gone = await official(stack, "tg-delete-config-item", "--type", "t", "--key", "k")
    assert gone.code == 0, gone
    missing = await official(stack, "tg-delete-config-item", "--type", "t", "--key", "k")
    assert "not-found" in missing.stdout + missing.stderr, missing


async def test_the_one_flow(stack: Stack) -> None:
    flows = await official(stack, "tg-show-flows")
    assert flows.code == 0 and "| id        | default" in flows.stdout, flows
    assert ".graph-rag.request" in flows.stdout
    blueprints = await official(stack, "tg-show-flow-blueprints")
    assert "default" in blueprints.stdout, blueprints
    blueprint = await official(stack, "tg-get-flow-blueprint", "-n", "default")
    definition = json.loads(blueprint.stdout)
    assert definition["processors"]["extractor"] == "trustgraph_flow.extractor"
    started = await official(stack, "tg-start-flow", "-n", "default", "-i", "two", "-d", "x")
    assert "there is one flow, 'default'" in started.stdout + started.stderr, started


async def test_configuration_survives_a_restart(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    for run in range(2):
        async with Stack(pulsar_url, prefix, [config.proc], data_dir=tmp_path) as running:
            if run == 0:
                await rest(
                    running,
                    {"operation": "put", "values": [{"type": "t", "key": "k", "value": "kept"}]},
                )
            else:
                got = await rest(running, {"operation": "get", "keys": [{"type": "t", "key": "k"}]})
                assert got["values"][0]["value"] == "kept"


async def test_a_changed_prompt_shows_in_the_next_answers_trace(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    from tests.support.processors import EVERY, SAMPLES
    from trustgraph_flow.prompts.catalogue import PROMPTS
    from trustgraph_flow.prompts.templates import digest

    template = "Known facts, numbered:\n{{facts}}\n\nThe question: {{question}}"
    spec = PROMPTS["graph-rag-answer"]
    old, new = spec.digest, digest(spec.system, template)
    async with Stack(pulsar_url, prefix, EVERY, data_dir=tmp_path) as every:
        loaded = await every.cli("tg-load-document", str(SAMPLES / "capitals.txt"))
        assert loaded.code == 0, loaded.stderr

        async def asked() -> tuple[str, str]:
            done = await every.cli("tg-invoke-graph-rag", "-q", "What is the capital of France?")
            assert done.code == 0, done.stderr
            trace = next(ln for ln in done.stderr.splitlines() if ln.startswith("trace: "))
            exported = await every.cli("tg-export-explain-trace", trace.removeprefix("trace: "))
            return trace.removeprefix("trace: "), exported.stdout

        first, before = await asked()
        assert (
            old.removeprefix("sha256:")[:16] in before
            and new.removeprefix("sha256:")[:16] not in before
        )
        done = await official(
            every, "tg-set-prompt", "--id", "graph-rag-answer", "--prompt", template
        )
        assert "Prompt set." in done.stdout, done
        second, after = await asked()  # the very next answer, no restart
        assert (
            new.removeprefix("sha256:")[:16] in after
            and old.removeprefix("sha256:")[:16] not in after
        )
        assert "Known facts, numbered:" in after  # the prompt node is part of the trace
        # the trace names the prompt; the prompt's node holds its text
        from trustgraph_base.provenance.prompts import prompt_uri

        node = prompt_uri(second + "/synthesis", "graph-rag-answer", new)
        text = await every.cli("tg-query-triples", "-s", f"<{node}>", "-g", "urn:graph:retrieval")
        assert "Known facts, numbered:" in text.stdout and "promptDigest" in text.stdout, text

        diff = await every.cli("tg-diff-explain-traces", first, second)
        assert diff.code == 0, diff.stderr
        assert "graph-rag-answer" in diff.stdout and new.removeprefix("sha256:")[:12] in diff.stdout


async def test_each_key_sees_its_own_users_configuration(
    pulsar_url: str, prefix: str, tmp_path: Path
) -> None:
    async with Stack(
        pulsar_url, prefix, [config.proc], data_dir=tmp_path, token="admin-secret"
    ) as keyed:
        await each_key_sees_its_own(keyed)


async def each_key_sees_its_own(keyed: Stack) -> None:
    from tests.support.stack import create_key

    alice = await create_key(keyed, "alice", "--collection", "notes")  # limited to one collection
    bob = await create_key(keyed, "bob")

    async def as_user(key: str, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {key}"}
        async with (
            aiohttp.ClientSession() as http,
            http.post(keyed.url + "api/v1/config", json=body, headers=headers) as resp,
        ):
            found: dict[str, Any] = await resp.json()
            return found

    put = {"operation": "put", "values": [{"type": "t", "key": "k", "value": "alice's"}]}
    assert "error" not in await as_user(alice, put)
    mine = await as_user(alice, {"operation": "getvalues", "type": "t"})
    assert [v["value"] for v in mine["values"]] == ["alice's"]
    theirs = await as_user(bob, {"operation": "getvalues", "type": "t"})
    assert theirs["values"] == []
    named = await as_user(bob, {"operation": "getvalues", "type": "t", "user": "alice"})
    assert named["error"]["type"] == "forbidden"
