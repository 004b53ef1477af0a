"""RDF terms as pydantic models, in the gateway's JSON form.

IRI ``{"t":"i","i":…}``, literal ``{"t":"l","v":…,"dt"?:…,"ln"?:…}``, blank node
``{"t":"b","d":…}``, quoted triple ``{"t":"t","tr":{"s","p","o"}}``; a triple is
``{"s","p","o","g"?}``. Quoted triples are allowed in object position only (RDF 1.2).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, GetCoreSchemaHandler, ValidationInfo, field_validator
from pydantic_core import CoreSchema
from pydantic_core import core_schema as cs

from trustgraph_base.rdf.iri import FROZEN, IRI_PATTERN, IriChecked, check_iri, iri_fault
from trustgraph_base.rdf.lexical import XSD, check_lexical

__all__ = [
    "KIND_NAMES",
    "XSD",
    "BlankTerm",
    "IriTerm",
    "LiteralTerm",
    "QuotedTriple",
    "Term",
    "Triple",
    "TripleTerm",
    "blank",
    "check_blank",
    "check_iri",
    "check_lexical",
    "iri",
    "iri_fault",
    "lit",
    "quoted",
    "sparql_json",
    "term_key",
]

# A term's kind (its "t") in words, for messages that name a term of the wrong kind.
KIND_NAMES = {"i": "an IRI", "l": "a literal", "b": "a blank node", "t": "a triple"}
RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_LANG = re.compile(r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$")
_BLANK = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")


class IriTerm(IriChecked):
    """An IRI."""

    t: Literal["i"] = "i"
    i: Annotated[str, Field(pattern=IRI_PATTERN)]

    def __eq__(self, other: object) -> bool:
        return _same_term(self, other) if isinstance(other, BaseModel) else NotImplemented


def _same_term(term: BaseModel, other: BaseModel) -> bool:
    """What pydantic's ``__eq__`` decides for these models (same class, same fields: they
    have no private or extra attributes), without its generic walk: ~0.3 µs instead of ~2.7
    for two different IRIs, which every reader of triples compares often. Their hash is
    still pydantic's (a frozen model's, set because the class does not define one)."""
    return type(other) is type(term) and bool(term.__dict__ == other.__dict__)


class _GraphName:
    """A triple's ``g``: an IRI, or ``""`` read as the default graph (``None``), all checked in
    Rust (a Python validator on every triple was a tenth of decoding one). A bad value is
    reported as an ``IRI_PATTERN`` mismatch, so ``iri_fault`` gives ``check_iri``'s reason."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        default_graph = cs.no_info_after_validator_function(_none, cs.literal_schema([""]))
        iri_or_empty = cs.union_schema(
            [cs.str_schema(pattern=IRI_PATTERN), default_graph],  # the IRI first: no failed try
            mode="left_to_right",
            custom_error_type="string_pattern_mismatch",
            custom_error_context={"pattern": IRI_PATTERN},
        )
        return cs.nullable_schema(cs.chain_schema([cs.str_schema(), iri_or_empty]))


def _none(_: object) -> None:
    return None


class LiteralTerm(BaseModel):
    """A literal with an optional datatype IRI or language tag (never both)."""

    model_config = FROZEN
    t: Literal["l"] = "l"
    v: str
    dt: str | None = None
    ln: str | None = None

    def __eq__(self, other: object) -> bool:
        return _same_term(self, other) if isinstance(other, BaseModel) else NotImplemented

    # Field validators, not a model validator: they run only when ``dt``/``ln`` is given,
    # so a plain literal (most of them) costs no Python call when decoded.
    @field_validator("dt")
    @classmethod
    def _datatype(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None:
            check_iri(value)
            if "v" in info.data:
                check_lexical(info.data["v"], value)
        return value

    @field_validator("ln")
    @classmethod
    def _language(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None:
            if info.data.get("dt") is not None:
                raise ValueError("a literal has a datatype or a language tag, not both")
            if not _LANG.match(value):
                raise ValueError(f"bad language tag: {value!r}")
        return value


class BlankTerm(BaseModel):
    """A blank node, identified within one message."""

    model_config = FROZEN
    t: Literal["b"] = "b"
    d: str

    @field_validator("d")
    @classmethod
    def _valid(cls, value: str) -> str:
        return check_blank(value)


def check_blank(value: str) -> str:
    """Return ``value`` if it is a blank node label the wire accepts, else raise ``ValueError``."""
    if not _BLANK.match(value):
        raise ValueError(f"bad blank node id: {value!r}")
    return value


class QuotedTriple(BaseModel):
    """The s/p/o of a quoted triple (no graph)."""

    model_config = FROZEN
    s: IriTerm | BlankTerm = Field(discriminator="t")
    p: IriTerm
    o: Term


class TripleTerm(BaseModel):
    """An RDF 1.2 triple term, written ``<< s p o >>``; allowed as an object only."""

    model_config = FROZEN
    t: Literal["t"] = "t"
    tr: QuotedTriple


Term = Annotated[IriTerm | LiteralTerm | BlankTerm | TripleTerm, Field(discriminator="t")]
QuotedTriple.model_rebuild()


class Triple(IriChecked):
    """A triple, with the named graph it belongs in (``None``/absent: the default graph)."""

    s: IriTerm | BlankTerm = Field(discriminator="t")
    p: IriTerm
    o: Term
    g: Annotated[str | None, _GraphName] = None


def iri(value: str) -> IriTerm:
    """An IRI term."""
    return IriTerm(i=value)


def lit(
    value: str | int | float | bool, dt: str | None = None, lang: str | None = None
) -> LiteralTerm:
    """A literal; Python ints and bools get ``xsd:integer``/``xsd:boolean`` unless ``dt`` is given."""
    if isinstance(value, bool):
        return LiteralTerm(v="true" if value else "false", dt=dt or XSD + "boolean")
    if isinstance(value, int):
        return LiteralTerm(v=str(value), dt=dt or XSD + "integer")
    if isinstance(value, float):
        return LiteralTerm(v=repr(value), dt=dt or XSD + "double")
    return LiteralTerm(v=value, dt=dt, ln=lang)


def blank(ident: str) -> BlankTerm:
    """A blank node term."""
    return BlankTerm(d=ident)


def quoted(
    s: IriTerm | BlankTerm, p: IriTerm, o: IriTerm | LiteralTerm | BlankTerm | TripleTerm
) -> TripleTerm:
    """The quoted triple ``<< s p o >>``."""
    return TripleTerm(tr=QuotedTriple(s=s, p=p, o=o))


def term_key(term: IriTerm | LiteralTerm | BlankTerm | TripleTerm) -> str:
    """The term in RDF 1.2 N-Triples syntax (a triple term is ``<<( s p o )>>``), for output and keys."""
    if isinstance(term, IriTerm):
        return f"<{term.i}>"
    if isinstance(term, LiteralTerm):
        text = '"' + term.v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
        if term.ln:
            return f"{text}@{term.ln}"
        if term.dt and term.dt != XSD + "string":
            return f"{text}^^<{term.dt}>"
        return text
    if isinstance(term, BlankTerm):
        return f"_:{term.d}"
    tr = term.tr
    return f"<<( {term_key(tr.s)} {term_key(tr.p)} {term_key(tr.o)} )>>"


def sparql_json(term: IriTerm | LiteralTerm | BlankTerm | TripleTerm) -> dict[str, Any]:
    """The term as a SPARQL 1.1 Query Results JSON binding (a triple term as in SPARQL 1.2)."""
    if isinstance(term, IriTerm):
        return {"type": "uri", "value": term.i}
    if isinstance(term, BlankTerm):
        return {"type": "bnode", "value": term.d}
    if isinstance(term, LiteralTerm):
        out: dict[str, Any] = {"type": "literal", "value": term.v}
        if term.ln:
            out["xml:lang"] = term.ln
        elif term.dt and term.dt != XSD + "string":
            out["datatype"] = term.dt
        return out
    tr = term.tr
    parts = {"subject": tr.s, "predicate": tr.p, "object": tr.o}
    return {"type": "triple", "value": {k: sparql_json(v) for k, v in parts.items()}}
