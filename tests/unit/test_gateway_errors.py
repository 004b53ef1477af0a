"""The gateway's error mapping and settings, without a broker."""

from __future__ import annotations

import pytest

from trustgraph_base.errors import BrokerUnavailable, ErrorType, RequestTimeout, ServiceError
from trustgraph_flow.gateway.dispatch import as_failure
from trustgraph_flow.gateway.server import GatewaySettings, bind_host, effective_token


@pytest.mark.parametrize(
    ("type_", "status"),
    [
        ("bad-frame", 400),
        ("unauthorized", 401),
        ("unknown-service", 404),
        ("frame-too-large", 413),
        ("too-many-requests", 429),
        ("internal-error", 500),
        ("timeout", 504),
        ("not-found", 404),
        ("sparql-syntax", 400),
        ("embeddings-unavailable", 503),
        ("sparql-update-refused", 400),
        ("a-tools-own-type", 400),
    ],
)
def test_status_of_each_error(type_: str, status: int) -> None:
    assert ServiceError(ErrorType(type_), "m").status == status


def test_lower_layer_errors_are_mapped() -> None:
    assert as_failure(ServiceError(ErrorType.NOT_FOUND, "no doc")).body() == {
        "error": {"type": "not-found", "message": "no doc"}
    }
    assert as_failure(RequestTimeout("slow")).type == "timeout"
    assert as_failure(BrokerUnavailable("down")).type == "broker-unavailable"


def test_one_hierarchy_and_its_wire_form() -> None:
    from trustgraph_base.errors import TrustGraphError
    from trustgraph_cli.errors import AuthError, NotAGateway

    sent = ServiceError(ErrorType.SESSION_EXISTS, "taken")
    read = ServiceError.from_body(sent.body()["error"])
    assert (read.type, read.message, read.status) == (ErrorType.SESSION_EXISTS, "taken", 400)
    foreign = ServiceError.from_body({"type": "no-index", "message": "gone"})
    assert (str(foreign.type), foreign.status) == ("no-index", 400)
    assert ServiceError.from_body({}).body() == {"error": {"type": "error", "message": "{}"}}
    auth = AuthError("HTTP 401", token_sent=False)
    assert (auth.type, auth.status, auth.message) == (ErrorType.UNAUTHORIZED, 401, "HTTP 401")
    assert (
        issubclass(AuthError, ServiceError)
        and issubclass(NotAGateway, TrustGraphError)
        and not issubclass(NotAGateway, ServiceError)
    )


def test_token_sources_and_bind_host(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("TG_TOKEN", "TG_GATEWAY_TOKEN", "TRUSTGRAPH_TOKEN", "TG_HOST"):
        monkeypatch.delenv(var, raising=False)
    settings = GatewaySettings()
    assert effective_token(settings) is None and bind_host(settings, None) == "127.0.0.1"
    monkeypatch.setenv("TRUSTGRAPH_TOKEN", "b")
    assert effective_token(settings) == "b"
    monkeypatch.setenv("TG_GATEWAY_TOKEN", "a")
    # a token alone does not widen the bind: another interface must be asked for
    assert effective_token(settings) == "a" and bind_host(settings, "a") == "127.0.0.1"
    assert bind_host(GatewaySettings(host="0.0.0.0"), "a") == "0.0.0.0"
    assert effective_token(GatewaySettings(token="c")) == "c"
    assert bind_host(GatewaySettings(host="10.0.0.1"), None) == "10.0.0.1"
