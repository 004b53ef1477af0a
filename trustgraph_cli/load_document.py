"""tg-load-document: upload a file to the librarian and follow it through decode, chunk, extract."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import click

from trustgraph_base.bounds import CHUNK_OVERLAP, CHUNK_SIZE
from trustgraph_cli.load_left import interrupted, lost
from trustgraph_cli.options import Gateway, bounded_option, command, gateway_options, run
from trustgraph_cli.terminal import Interrupted

if TYPE_CHECKING:
    from pathlib import Path

    from trustgraph_base.schema.documents import DocumentInfo

EPILOG = """\b
Examples:
  tg-load-document report.pdf
  tg-load-document notes.md --title "Meeting notes" --chunk-size 1000 --chunk-overlap 100
  tg-load-document paper.txt --id paper-1 --no-wait
"""

MIME_TYPES = {
    ".pdf": "application/pdf",
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
}


@command(epilog=EPILOG)
@click.argument("file", type=click.Path())  # made a Path in main: pathlib is slow to import
@click.option(
    "--id", "doc_id", default=None, help="Document id or URI [default: file name + content hash]."
)
@click.option("--title", default=None, help="Document title [default: the file name].")
@click.option(
    "--mime-type",
    default=None,
    type=click.Choice(sorted(set(MIME_TYPES.values()))),
    help="MIME type [default: from the extension: .pdf, .txt, .md; none: text/plain if it is text].",
)
@bounded_option(
    "--chunk-size", CHUNK_SIZE, "Characters per chunk for this document [default: the chunker's]."
)
@bounded_option(
    "--chunk-overlap",
    CHUNK_OVERLAP,
    "Characters shared by consecutive chunks [default: the chunker's].",
)
@click.option("--no-wait", is_flag=True, help="Return once uploaded; do not follow processing.")
@click.option(
    "--stall-timeout",
    type=click.FloatRange(min=1),
    default=600,
    show_default=True,
    help="Give up waiting when processing makes no progress for this many seconds.",
)
@gateway_options
def main(
    file: str,
    doc_id: str | None,
    title: str | None,
    mime_type: str | None,
    chunk_size: int | None,
    chunk_overlap: int | None,
    no_wait: bool,
    stall_timeout: float,
    gw: Gateway,
) -> None:
    """Load a PDF, text or Markdown FILE and wait until it is decoded, chunked and extracted.

    Progress goes to stderr (a bar on a terminal, plain lines otherwise); the document
    URI is printed as the last line of stdout once processing is done.
    """
    from pathlib import Path

    path = Path(file)
    if "://" in file and not path.exists():  # pathlib would make https:/host/… of it
        raise click.ClickException(
            f"{file!r} is a URL: tg-load-document loads a local file; download it first "
            "and load the downloaded file."
        )
    digest = check_file(path)
    mime = mime_type or detect_mime(path)
    if mime != "application/pdf":
        check_text(path)
    if chunk_size is not None and chunk_overlap is not None and chunk_overlap >= chunk_size:
        raise click.BadParameter(
            f"{chunk_overlap} must be smaller than --chunk-size {chunk_size}.",
            param_hint="'--chunk-overlap'",
        )
    meta = {
        "id": doc_id or default_id(path, digest),
        "title": title or path.name,
        "mime_type": mime,
        "chunk_size": chunk_size,
        "chunk_overlap": chunk_overlap,
    }
    size = path.stat().st_size
    wait = None if no_wait else stall_timeout
    state = {"stage": "uploading", "id": str(meta["id"])}

    async def loading() -> DocumentInfo:
        try:
            return await load(gw, path, size, meta, state, wait=wait)
        except Exception as exc:  # the gateway lost: say what the server keeps
            from trustgraph_cli.errors import cut_off, to_click_error

            if gw.debug or not cut_off(exc):
                raise
            raise click.ClickException(lost(to_click_error(exc, gw.url).message, state)) from None

    try:
        info: DocumentInfo = run(gw, loading)
    except Interrupted:
        raise Interrupted(interrupted(state)) from None
    if info.status == "failed":
        from trustgraph_cli.render.text import safe

        reason = safe(info.error or "no reason given")
        raise click.ClickException(f"processing {info.id} failed: {reason}.")
    if info.held is not None:
        from trustgraph_cli.document_progress import held_note
        from trustgraph_cli.render.text import safe

        click.echo(f"Warning: {safe(held_note(info))}", err=True)
    click.echo(info.id)


def detect_mime(file: Path) -> str:
    """The MIME type its extension implies, or a one-line error naming what is supported. A
    file with no extension (README, NEWS, COPYING) is plain text when its start is UTF-8
    with no NUL byte."""
    mime = MIME_TYPES.get(file.suffix.lower())
    if mime is None and not file.suffix and plain_text(file):
        mime = "text/plain"
    if mime is None:
        raise click.ClickException(
            f"unsupported file type {file.suffix or '(none)'!r} for {str(file)!r}: "
            "load a .pdf, .txt or .md file, or pass --mime-type."
        )
    return mime


def plain_text(file: Path) -> bool:
    """Whether the file's start is UTF-8 text (a character cut at the end allowed) with no
    NUL byte: what a text file without an extension is."""
    import codecs

    try:
        head = file_head(file)
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except (OSError, UnicodeDecodeError):
        return False
    return b"\x00" not in head


def file_head(file: Path) -> bytes:
    from trustgraph_base.not_text import SNIFF

    with file.open("rb") as fh:
        return fh.read(SNIFF)


def check_text(file: Path) -> None:
    """A file to load as text whose start says it is a PDF, UTF-16 or a binary is refused
    before it is uploaded (it failed in the decoder, advised to convert from Latin-1, and
    stayed listed as failed)."""
    from trustgraph_base.not_text import not_text

    if (why := not_text(file_head(file))) is not None:
        raise click.ClickException(f"{str(file)!r} cannot load as text: {why}.")


def check_file(file: Path) -> str:
    """The file's SHA-256 (hex), after making sure it is a readable, non-empty file."""
    if not file.exists():
        raise click.ClickException(f"no such file {str(file)!r}.")
    if not file.is_file():
        raise click.ClickException(f"{str(file)!r} is not a file.")
    import hashlib

    digest = hashlib.sha256()
    try:
        with file.open("rb") as fh:
            while block := fh.read(1 << 20):
                digest.update(block)
    except OSError as exc:
        raise click.ClickException(f"cannot read {str(file)!r} ({exc.strerror}).") from None
    if file.stat().st_size == 0:
        raise click.ClickException(f"{str(file)!r} is empty: nothing to load.")
    return digest.hexdigest()


def default_id(file: Path, digest: str) -> str:
    """``<file-stem>-<hash8>``: readable, and the same file always gets the same id."""
    return f"{id_stem(file.stem)}-{digest[:8]}"


def id_stem(name: str) -> str:
    """The part of a default id before its hash: ``name`` lower-cased, other signs as '-'."""
    return re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-.")[:60] or "document"


async def load(
    gw: Gateway,
    file: Path,
    size: int,
    meta: dict[str, Any],
    state: dict[str, str],
    *,
    wait: float | None,
) -> DocumentInfo:
    """Upload in parts, then (unless ``wait`` is None) follow the document until it is done.

    ``wait`` is the stall timeout: how long processing may go without visible progress.
    """
    from trustgraph_cli.client import GatewayClient
    from trustgraph_cli.document_progress import follow
    from trustgraph_cli.document_upload import upload
    from trustgraph_cli.render.progress import Progress

    with Progress.detect() as progress:
        async with GatewayClient(gw) as client:
            info = await upload(client, file, size, meta, progress, state)
            if wait is None:
                return info
            return await follow(client, info, progress, stall=wait)


if __name__ == "__main__":
    main()
