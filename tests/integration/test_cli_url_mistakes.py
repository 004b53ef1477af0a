"""-u and token mistakes, through the real commands against a real gateway: one line naming the
URL and the real cause (usage mistakes exit 2, the rest exit 1)."""

from __future__ import annotations

from tests.support.stack import Stack, run_cli, stack_fixture
from trustgraph_flow.store.processor import proc as store

stack = stack_fixture([store], token="tok")


def one_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err
    return lines[0]


async def test_url_mistakes_name_the_url_and_the_cause(stack: Stack) -> None:
    port = stack.url.rstrip("/").rsplit(":", 1)[1]
    token = ("-t", "tok")
    for command in (("tg-list-explain-traces",), ("tg-invoke-graph-rag", "-q", "hi")):
        bare = await run_cli(*command, "-u", f"localhost:{port}", *token)
        assert bare.code == 2
        assert f"'localhost:{port}' has no scheme: write http://localhost:{port}/" in one_line(
            bare.stderr
        )

        ftp = await run_cli(*command, "-u", f"ftp://localhost:{port}/", *token)
        assert ftp.code == 2 and "uses ftp://" in one_line(ftp.stderr)

        tls = await run_cli(*command, "-u", f"https://127.0.0.1:{port}/", *token)
        line = one_line(tls.stderr)
        assert tls.code == 1 and f"https://127.0.0.1:{port}/" in line
        assert "WRONG_VERSION_NUMBER" in line and f"--api-url http://127.0.0.1:{port}/" in line

        below = await run_cli(*command, "-u", stack.url + "api/", *token)
        line = one_line(below.stderr)
        assert below.code == 1 and f"no gateway API at {stack.url}api/" in line
        assert "HTTP 404" in line and f"e.g. {stack.url}" in line

        api = await run_cli(*command, "-u", stack.url + "api/v1/", *token)  # a path copied
        line = one_line(api.stderr)  # from the docs: the gateway answers, for another path
        assert api.code == 1 and line.startswith(f"Error: no gateway API at {stack.url}api/v1/")
        assert line.endswith(f"Pass the gateway's root as --api-url, e.g. {stack.url}"), line
        assert len(line) < 300, line  # not the list of every path the gateway offers

        unknown = await run_cli(*command, "-u", "http://no-such-host.invalid:8088/", *token)
        line = one_line(unknown.stderr)
        assert unknown.code == 1 and "unknown host 'no-such-host.invalid'" in line


async def test_a_missing_token_is_not_called_refused(stack: Stack) -> None:
    for command in (("tg-list-explain-traces",), ("tg-invoke-graph-rag", "-q", "hi")):
        missing = await run_cli(*command, "-u", stack.url)
        line = one_line(missing.stderr)
        assert missing.code == 1 and "requires a token" in line and "none was given" in line
        assert "refused" not in line
        wrong = await run_cli(*command, "-u", stack.url, "-t", "nope")
        assert wrong.code == 1 and "refused the token" in one_line(wrong.stderr)
