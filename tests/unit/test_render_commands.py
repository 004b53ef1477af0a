"""The commands' surface without a gateway: help and its examples, lazy imports, file checks."""

from __future__ import annotations

import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from trustgraph_base.schema.documents import DocumentInfo
from trustgraph_base.schema.explain import TraceSummary
from trustgraph_cli.document_progress import stage_of
from trustgraph_cli.list_explain_traces import trace_table
from trustgraph_cli.load_document import default_id
from trustgraph_cli.render.style import Style

COMMANDS = {
    "tg-list-explain-traces": "trustgraph_cli.list_explain_traces",
    "tg-show-explain-trace": "trustgraph_cli.show_explain_trace",
    "tg-load-document": "trustgraph_cli.load_document",
    "tg-list-documents": "trustgraph_cli.list_documents",
    "tg-show-document-hierarchy": "trustgraph_cli.show_document_hierarchy",
}
NOWHERE = "http://127.0.0.1:9/"  # nothing listens: a command that tried to upload would say so


# The pydantic-free modules of trustgraph_base that every command needs at start-up.
LIGHT_BASE = ("trustgraph_base", "trustgraph_base.usage", "trustgraph_base.bounds")


@pytest.mark.parametrize("module", sorted(COMMANDS.values()))
def test_importing_a_command_stays_light(module: str) -> None:
    code = (
        f"import sys, {module}; heavy = ('aiohttp', 'pydantic', 'rich', 'trustgraph_base'); "
        "print(sorted({m.split('.')[0] for m in sys.modules if m.startswith(heavy) "
        f"and m not in {LIGHT_BASE}}}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def load(*args: str) -> click.testing.Result:
    from trustgraph_cli.load_document import main

    return CliRunner().invoke(main, [*args, "-u", NOWHERE])


def test_ctrl_c_while_a_command_starts_is_interrupted_not_aborted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while tg-load-document hashed a large file (4.6 s for 300 MB), before anything
    was sent, printed click's 'Aborted!' and exit 1, read as a failure; a command's Ctrl-C is
    'Interrupted.', exit 130, however early."""
    import trustgraph_cli.load_document as loader

    def ctrl_c(file: Path) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(loader, "check_file", ctrl_c)
    (tmp_path / "big.txt").write_text("large enough to take a while to hash\n")
    got = load(str(tmp_path / "big.txt"))
    assert (got.exit_code, got.stdout, got.stderr) == (130, "", "Interrupted.\n")


def test_ctrl_c_while_a_command_imports_is_one_line_not_a_traceback() -> None:
    """Ctrl-C 0.2 s after starting tg-invoke-document-rag (at load 16) showed a traceback of
    click's import it cut; every tg-* entry point imports trustgraph_cli first."""
    code = "import trustgraph_cli.invoke_document_rag\nraise KeyboardInterrupt"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (out.returncode in (-2, 130), out.stderr) == (True, "Interrupted.\n")
    other = "import trustgraph_cli\nraise ValueError('not a Ctrl-C')"
    out = subprocess.run([sys.executable, "-c", other], capture_output=True, text=True)
    assert out.returncode == 1 and "Traceback" in out.stderr and "not a Ctrl-C" in out.stderr


def test_load_document_refuses_bad_files_before_uploading(tmp_path: Path) -> None:
    missing = load(str(tmp_path / "nope.pdf"))
    assert (missing.exit_code, missing.stderr) == (
        1,
        f"Error: no such file '{tmp_path}/nope.pdf'.\n",
    )
    (tmp_path / "empty.txt").write_bytes(b"")
    empty = load(str(tmp_path / "empty.txt"))
    assert empty.exit_code == 1 and "is empty: nothing to load" in empty.stderr
    (tmp_path / "sheet.xlsx").write_bytes(b"data")
    odd = load(str(tmp_path / "sheet.xlsx"))
    assert odd.exit_code == 1 and "unsupported file type '.xlsx'" in odd.stderr
    assert "--mime-type" in odd.stderr
    (tmp_path / "blob").write_bytes(b"\x7fELF\x00\x01")
    binary = load(str(tmp_path / "blob"))
    assert binary.exit_code == 1 and "unsupported file type '(none)'" in binary.stderr
    (tmp_path / "README").write_text("Ça marche: a README has no extension.\n")
    readme = load(str(tmp_path / "README"))  # plain text: past the checks, to the gateway
    assert readme.exit_code == 1 and "unsupported file type" not in readme.stderr
    assert f"cannot reach gateway at {NOWHERE}" in readme.stderr
    # A .txt that is not text was uploaded, then failed in the decoder advising a Latin-1
    # conversion, and stayed listed as failed: refused here, saying what it is.
    pdf = (Path(__file__).parents[2] / "samples" / "world-facts.pdf").read_bytes()
    for name, data, said in [
        ("manual.txt", pdf, "it is a PDF (it starts with %PDF-)"),
        ("ls.txt", b"\x7fELF\x02\x01\x01\x00\x00", "it is not text (NUL byte at 7)"),
        ("notes.md", "café".encode("utf-16"), "it is UTF-16 text"),
    ]:
        (tmp_path / name).write_bytes(data)
        refused = load(str(tmp_path / name))
        assert refused.exit_code == 1 and refused.stderr.startswith(
            f"Error: '{tmp_path / name}' cannot load as text: {said}"
        ), refused.stderr
    as_pdf = load(str(tmp_path / "manual.txt"), "--mime-type", "application/pdf")
    assert f"cannot reach gateway at {NOWHERE}" in as_pdf.stderr  # what it is, said: it goes
    (tmp_path / "a.txt").write_text("hello")
    overlap = load(str(tmp_path / "a.txt"), "--chunk-size", "100", "--chunk-overlap", "100")
    assert overlap.exit_code == 2 and "must be smaller than --chunk-size 100" in overlap.stderr
    assert len(overlap.stderr.splitlines()) == 1
    dirs = load(str(tmp_path))
    assert dirs.exit_code == 1 and "is not a file" in dirs.stderr
    # A URL is named as typed (not as pathlib's 'https:/host/…') and said to be one.
    url = load("https://example.com/report.pdf")
    assert (url.exit_code, url.stderr) == (
        1,
        "Error: 'https://example.com/report.pdf' is a URL: tg-load-document loads a local "
        "file; download it first and load the downloaded file.\n",
    )
    # A good file gets as far as the gateway (which is not there): one line, exit 1.
    unreachable = load(str(tmp_path / "a.txt"))
    assert unreachable.exit_code == 1 and "cannot reach gateway" in unreachable.stderr
    assert len(unreachable.stderr.splitlines()) == 1


def test_default_id_is_readable_and_content_addressed() -> None:
    assert default_id(Path("My Report (v2).PDF"), "0123456789abcdef") == "my-report-v2-01234567"
    assert default_id(Path("...pdf"), "ff" * 32) == "document-ffffffff"


def info(**fields: object) -> DocumentInfo:
    base = {
        "id": "urn:trustgraph:doc:x",
        "mime_type": "text/plain",
        "user": "u",
        "collection": "c",
        "time": "2026-01-01T00:00:00Z",
    }
    return DocumentInfo(**{**base, **fields})


def test_processing_stages_follow_the_counters() -> None:
    assert stage_of(info(status="uploading")) == ("uploading", 0, 0)
    assert stage_of(info()) == ("decoding", 0, 0)
    assert stage_of(info(pages_decoded=37)) == ("decoding", 37, 0)  # a page counter, no total yet
    assert stage_of(info(chunks_split=90)) == ("recording", 90, 0)  # a page-less text split
    assert stage_of(info(chunks_split=90, chunks_made=40)) == ("chunking", 40, 90)
    assert stage_of(info(pages=2)) == ("chunking", 0, 2)
    assert stage_of(info(pages=2, pages_chunked=1, chunks=8)) == ("chunking", 1, 2)
    assert stage_of(info(pages=2, pages_chunked=2, chunks=8, chunks_done=3)) == ("extracting", 3, 8)
    assert stage_of(info(pages_chunked=1, chunks=2, chunks_done=1)) == ("extracting", 1, 2)


def test_progress_totals_never_grow_while_a_long_pdf_is_processed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The counters a 114-page PDF goes through: chunk counts grow page by page."""
    from trustgraph_cli.document_progress import UNITS
    from trustgraph_cli.render.progress import Progress

    states = [info(pages_decoded=n) for n in range(0, 115, 7)]
    states += [info(pages=114, pages_chunked=n, chunks=3 * n, chunks_done=n) for n in range(115)]
    states += [info(pages=114, pages_chunked=114, chunks=342, chunks_done=n) for n in range(343)]
    with Progress(live=False) as progress:
        for state in states:
            stage, done, total = stage_of(state)
            progress.update(stage, done, total, UNITS[stage])
    lines = capsys.readouterr().err.splitlines()
    assert lines[:2] == ["decoding", "decoding 7 pages"]
    read = [int(line.split()[1]) for line in lines[1:] if line.startswith("decoding")]
    assert len(read) >= 5 and read == sorted(read)  # a page counter while the PDF decodes
    totals: dict[str, set[str]] = {}
    for line in lines[1:]:
        stage, counts, _unit = line.split()
        if "/" in counts:
            totals.setdefault(stage, set()).add(counts.split("/")[1])
    assert totals == {"chunking": {"114"}, "extracting": {"342"}}  # one total per stage
    assert lines[-1] == "extracting 342/342 chunks"


def test_a_count_alone_agrees_with_its_number(capsys: pytest.CaptureFixture[str]) -> None:
    """A stage with no total yet counts in words that agree: "1 page", "2 pages"."""
    from trustgraph_cli.render.progress import Progress

    with Progress(live=False) as progress:
        for done in (1, 2):
            progress.update("chunking", done, 0, "chunks")
        progress.update("decoding", 1, 0, "pages")
    assert capsys.readouterr().err.splitlines() == [
        "chunking 1 chunk",
        "chunking 2 chunks",
        "decoding 1 page",
    ]


def test_trace_table_adds_status_only_when_needed() -> None:
    done = TraceSummary(
        id="urn:trustgraph:agent:1", type="agent", question="q?", time="2026-01-01T00:00:00.000Z"
    )
    assert trace_table([done], Style(width=80))[0].split() == [
        "Session",
        "ID",
        "Type",
        "Question",
        "Time",
    ]
    running = done.model_copy(update={"status": "in-progress"})
    table = trace_table([done, running], Style(width=80))
    assert table[0].split()[-1] == "Status" and table[3].endswith("in-progress")
    assert "Agent" in table[2] and "2026-01-01 00:00:00Z" in table[2]


def test_session_ids_are_shown_bare() -> None:
    from trustgraph_cli.list_explain_traces import session_id

    assert session_id("urn:trustgraph:docrag:abc") == "abc"
    assert session_id("urn:trustgraph:agent:") == "urn:trustgraph:agent:"
    assert session_id("urn:other:x") == "urn:other:x"


def test_plain_progress_prints_each_stage_once_then_the_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from trustgraph_cli.render.progress import Progress

    with Progress(live=False) as progress:
        progress.update("uploading", 10, 10, "bytes")
        progress.update("decoding", 0, 0)
        progress.update("decoding", 0, 0)
        for done in range(0, 101):
            progress.update("extracting", done, 100, "chunks")
        progress.finish(info(status="complete", pages=1, chunks=100, chunks_done=100, edges=7))
    lines = capsys.readouterr().err.splitlines()
    assert lines[:3] == ["uploading 10/10 bytes", "decoding", "extracting 0/100 chunks"]
    assert len(lines) <= 16  # extraction in steps of about a tenth, not a line per chunk
    assert lines[-2:] == ["extracting 100/100 chunks", "complete: 1 page, 100 chunks, 7 edges"]
    steps = [line for line in lines if line.startswith("extracting ")]
    assert steps == [f"extracting {n}/100 chunks" for n in range(0, 101, 10)]  # chunk by chunk


def test_plain_progress_goes_on_when_each_poll_brings_a_few_chunks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A long load polled often: each step is small, the lines still come every tenth."""
    from trustgraph_cli.render.progress import Progress

    with Progress(live=False) as progress:
        for done in range(0, 5133, 7):
            progress.update("extracting", done, 5132, "chunks")
        progress.update("extracting", 5132, 5132, "chunks")
    counts = [int(line.split()[1].split("/")[0]) for line in capsys.readouterr().err.splitlines()]
    assert counts[0] == 0 and counts[-1] == 5132 and counts == sorted(counts)
    assert 10 <= len(counts) <= 12  # about a tenth apart
    assert all(b - a >= 513 for a, b in pairwise(counts[:-1]))  # the last step: what is left


def test_a_viewer_address_given_as_an_id_names_the_id_in_it() -> None:
    """The browser's address of a viewer page, pasted where an id goes: a usage error naming
    the id and the -U/-C it shows, not "no trace 'http://…'" from the store."""
    from trustgraph_cli.show_document_hierarchy import main as hierarchy
    from trustgraph_cli.show_explain_trace import main as show

    trace = "urn:trustgraph:agent:04f79e8a-80c0-4dd1-8aa4-e0eceb030902"
    page = f"http://localhost:8088/?collection=history#/trace/{trace.replace(':', '%3A')}?node=x"
    got = CliRunner().invoke(show, [page, "-u", NOWHERE], prog_name="tg-show-explain-trace")
    assert (got.exit_code, got.stderr) == (
        2,
        f"Error: Invalid value for 'ID': {page!r} is the trace viewer's address of a trace: "
        f"pass its id, {trace!r} with -C 'history' (see 'tg-show-explain-trace --help')\n",
    )
    doc = "http://h:8088/?user=alice&collection=c#/document/urn%3Atrustgraph%3Adoc%3Ad-1?page=2"
    got = CliRunner().invoke(hierarchy, [doc, "-u", NOWHERE])
    assert got.exit_code == 2, got.stderr
    assert "pass its id, 'urn:trustgraph:doc:d-1' with -U 'alice' -C 'c'" in got.stderr
    # An http document URI (a document loaded with --id https://…) is an id: it is asked for.
    got = CliRunner().invoke(hierarchy, ["https://example.com/report", "-u", NOWHERE])
    assert got.exit_code == 1 and "cannot reach gateway" in got.stderr, got.stderr
