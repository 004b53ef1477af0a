"""Small pieces shared by the triple builders."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from trustgraph_base.provenance.namespaces import PROV, RDF, TG, XSD
from trustgraph_base.rdf.assembled import assembled as _assembled
from trustgraph_base.rdf.assembled import assembled_triple, graph_name, plain_literal
from trustgraph_base.rdf.assembled import iri_term as _subject
from trustgraph_base.rdf.lexical import is_lexical
from trustgraph_base.rdf.rows import Row, as_triples, row, triple_of, triples_of
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Term, Triple, check_lexical

EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
MAX_AHEAD = timedelta(days=1)  # clock skew between a replaying caller and this host


def now_iso() -> str:
    """The current time as an ``xsd:dateTime`` lexical form (UTC, milliseconds)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def check_started_at(text: str) -> str:
    """A caller-given trace time: an ``xsd:dateTime`` with its zone, from 1970 to a day from now.

    ``ValueError`` otherwise, so a trace cannot be pinned to the top of the list (9999-12-31)
    or given an offset no clock has (+25:00).
    """
    hint = "use e.g. 2026-01-02T03:04:05Z"
    try:
        check_lexical(text, XSD.dateTime)
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"bad started_at {text!r}: {hint}") from None
    if when.tzinfo is None:
        raise ValueError(f"bad started_at {text!r}: it needs a zone (Z or ±hh:mm); {hint}")
    if not EARLIEST <= when <= datetime.now(UTC) + MAX_AHEAD:
        raise ValueError(f"bad started_at {text!r}: not between 1970 and now")
    return text


def datetime_literal(timestamp: str) -> LiteralTerm:
    """An ``xsd:dateTime`` literal: assembled when its lexical form is one (each question
    has one, and pydantic's checks of it cost ~4 µs), else ``LiteralTerm``'s error."""
    if type(timestamp) is str and is_lexical(timestamp, XSD.dateTime):
        values = {"t": "l", "v": timestamp, "dt": XSD.dateTime, "ln": None}
        return _assembled(LiteralTerm, values, {"v", "dt"})
    return LiteralTerm(v=timestamp, dt=XSD.dateTime)


def integer_literal(value: int) -> LiteralTerm:
    # ``str(int(...))`` is always an xsd:integer lexical form: nothing left to check.
    values = {"t": "l", "v": str(int(value)), "dt": XSD.integer, "ln": None}
    return _assembled(LiteralTerm, values, {"v", "dt"})


def plain_integer(value: int) -> LiteralTerm:
    """A whole number as the reference writes its offsets and lengths: a plain literal ("0",
    no datatype; readers take its lexical form)."""
    return text(str(int(value)))


def decimal_literal(value: float) -> LiteralTerm:
    """``value`` as an ``xsd:decimal`` in the canonical form (no trailing zeros), which is
    what the store gives back: "7.350" would be read as "7.35" and no longer equal what
    was published. Milliseconds: three decimals."""
    if not math.isfinite(value):  # no decimal form: refused as LiteralTerm refuses it
        return LiteralTerm(v=repr(value), dt=XSD.decimal)
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return _assembled(
        LiteralTerm, {"t": "l", "v": text, "dt": XSD.decimal, "ln": None}, {"v", "dt"}
    )


def text(value: str) -> LiteralTerm:
    return plain_literal(value)


def triple(s: str, p: IriTerm, o: Term, graph: str | None) -> Triple:
    # Every part is a model already validated when it was made (the subject and graph
    # checked here, once per distinct value): the triple is assembled, not validated again.
    return assembled_triple(_subject(s), p, o, graph)


def type_rows(s: str, graph: str | None, *classes: IriTerm) -> list[Row]:
    """``row(s, RDF.type, cls, graph)`` of each class (the subject and graph checked once)."""
    subject, name = _subject(s), graph_name(graph)
    return [(subject, RDF.type, cls, name) for cls in classes]


def types(s: str, graph: str | None, *classes: IriTerm) -> list[Triple]:
    return triples_of(type_rows(s, graph, *classes))


def metrics_rows(
    stage_uri: str,
    graph: str,
    *,
    model: str | None = None,
    in_token: int | None = None,
    out_token: int | None = None,
    latency_ms: float | None = None,
    embedding: bool = False,
) -> list[Row]:
    """Per-stage cost figures: the reference's tg:llmModel and tg:llmDurationMs (whole
    milliseconds) for a stage's LLM calls, with tg:inToken and tg:outToken, each count a plain
    literal as the reference writes it. A stage that made none (no model, no tokens), or whose model
    is an embeddings model (``embedding``: tg:embeddingModel), is timed by tg:latencyMs."""
    out: list[Row] = []
    llm = not embedding and (bool(model) or in_token is not None or out_token is not None)
    if model:
        name = TG.embeddingModel if embedding else TG.llmModel
        out.append(row(stage_uri, name, model, graph))
    if in_token is not None:
        out.append(row(stage_uri, TG.inToken, str(int(in_token)), graph))
    if out_token is not None:
        out.append(row(stage_uri, TG.outToken, str(int(out_token)), graph))
    if latency_ms is not None and llm:
        out.append(row(stage_uri, TG.llmDurationMs, str(whole_ms(latency_ms)), graph))
    elif latency_ms is not None:
        out.append(row(stage_uri, TG.latencyMs, decimal_literal(latency_ms), graph))
    return out


metrics_triples = as_triples(metrics_rows)


def whole_ms(latency_ms: float) -> int:
    """Milliseconds rounded half up to a whole number (tg:llmDurationMs)."""
    return int(latency_ms + 0.5) if latency_ms >= 0 else -int(-latency_ms + 0.5)


def failure_triples(uri: str, graph: str, message: str) -> list[Triple]:
    """Mark a trace entity (its question) as failed, with the reason."""
    return [triple(uri, TG.error, text(message), graph)]


def interrupted_triples(uri: str, graph: str, message: str, ended_at: str) -> list[Triple]:
    """Mark a trace whose run died with its process: it ended (``prov:endedAtTime``, when
    this was found) without a conclusion, and ``tg:interrupted`` says why."""
    return [
        triple(uri, PROV.endedAtTime, datetime_literal(ended_at), graph),
        triple(uri, TG.interrupted, text(message), graph),
    ]


def derived_row(s: str, parent: str, graph: str | None) -> Row:
    return row(s, PROV.wasDerivedFrom, _subject(parent), graph)  # the parent: an entity too


def derived(s: str, parent: str, graph: str | None) -> Triple:
    return triple_of(derived_row(s, parent, graph))
