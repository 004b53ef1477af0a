"""The web trace viewer: its pages at ``/``, its files under ``/viewer/``, and its sign-in cookie.

The pages are static files shipped in this package (no build step, nothing fetched from
elsewhere). They call the same REST API as the ``tg-*`` commands, so every request goes
through the gateway's one auth check and is scoped exactly as a command's would be. A key
entered once is kept in an HttpOnly, SameSite=Strict cookie; it is read only on requests
that also carry the ``X-TG-Viewer`` header, which a page of another origin cannot add
without a CORS preflight that the gateway never grants.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from aiohttp import web

COOKIE = "tg_viewer_key"
HEADER = "X-TG-Viewer"
COOKIE_MAX_AGE = 7 * 24 * 3600
STATIC = Path(__file__).with_name("static")
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
}
# Every file the viewer serves, by name: a request never names a path on disk.
FILES = {p.name: p for p in STATIC.iterdir() if p.suffix in _TYPES} if STATIC.is_dir() else {}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

KeyCheck = Callable[[web.Application, str | None], bool]
# Who a key is, for the page to show: {"user": str | None, "collections": [str] | None, "admin": bool}.
Identify = Callable[[web.Application, str | None], dict[str, object] | None]
# What became of a key that no longer signs in (revoked, expired), told to its holder; else None.
Refusal = Callable[[web.Application, str], str | None]
CHECK: web.AppKey[KeyCheck] = web.AppKey("viewer_check")
IDENTIFY: web.AppKey[Identify] = web.AppKey("viewer_identify")
REFUSAL: web.AppKey[Refusal] = web.AppKey("viewer_refusal")
AUTH_ON = web.AppKey("viewer_auth_on", bool)


def cookie_key(request: web.Request) -> str | None:
    """The key in the viewer's cookie, on a request from the viewer's own pages only."""
    if request.headers.get(HEADER) != "1":
        return None
    return request.cookies.get(COOKIE) or None


def _file(name: str) -> web.Response:
    path = FILES.get(name)
    if path is None:
        raise web.HTTPNotFound(text="no such file")
    return web.Response(
        body=path.read_bytes(),
        content_type=_TYPES[path.suffix].split(";")[0],
        charset="utf-8" if "charset" in _TYPES[path.suffix] else None,
        headers={"Cache-Control": "no-cache"},
    )


async def index_handler(request: web.Request) -> web.Response:
    return _file("index.html")


async def file_handler(request: web.Request) -> web.Response:
    return _file(request.match_info["name"])


async def session_handler(request: web.Request) -> web.Response:
    """Whether this gateway needs a key, and whether the browser's cookie holds a good one."""
    auth = request.app[AUTH_ON]
    key = request.cookies.get(COOKIE)
    signed_in = not auth or request.app[CHECK](request.app, key)
    who = _who(request.app, key if auth else None) if signed_in else None
    return web.json_response({"auth": auth, "signed_in": signed_in, "who": who})


def _who(app: web.Application, key: str | None) -> dict[str, object] | None:
    return app[IDENTIFY](app, key) if IDENTIFY in app else None


async def login_handler(request: web.Request) -> web.Response:
    """``{"key": K}``: a good key is kept in the cookie; a wrong one is refused (401)."""
    if request.headers.get(HEADER) != "1":
        return _error(400, "bad-request", f"sign in from the viewer (header {HEADER} missing)")
    try:
        body = json.loads(await request.read())
    except (ValueError, UnicodeDecodeError):
        body = None
    key = body.get("key") if isinstance(body, dict) else None
    if not isinstance(key, str) or not key.strip():
        return _error(400, "bad-request", 'send {"key": "…"} with your access key')
    if not request.app[AUTH_ON]:
        return web.json_response({"auth": False, "signed_in": True, "who": _who(request.app, None)})
    if not request.app[CHECK](request.app, key.strip()):
        said = request.app[REFUSAL](request.app, key.strip()) if REFUSAL in request.app else None
        return _error(401, "unauthorized", said or "that key is not valid for this gateway")
    resp = web.json_response(
        {"auth": True, "signed_in": True, "who": _who(request.app, key.strip())}
    )
    resp.set_cookie(
        COOKIE,
        key.strip(),
        max_age=COOKIE_MAX_AGE,
        path="/",
        httponly=True,
        samesite="Strict",
        secure=request.secure,
    )
    return resp


async def logout_handler(request: web.Request) -> web.Response:
    """Sign out, from the viewer's own pages only (else any page could sign a user out)."""
    if request.headers.get(HEADER) != "1":
        return _error(400, "bad-request", f"sign out from the viewer (header {HEADER} missing)")
    resp = web.json_response({"auth": request.app[AUTH_ON], "signed_in": False})
    resp.del_cookie(COOKIE, path="/")
    return resp


def _error(status: int, type: str, message: str) -> web.Response:
    return web.json_response({"error": {"type": type, "message": message}}, status=status)


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """No sniffing anywhere; the viewer's pages also get a strict CSP and no framing."""
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if request.path == "/" or request.path.startswith("/viewer/"):
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "no-referrer")


def add_viewer(
    app: web.Application,
    check: KeyCheck,
    *,
    auth_on: bool,
    identify: Identify | None = None,
    refusal: Refusal | None = None,
) -> None:
    """Serve the viewer from ``app``; ``check(app, key)`` is the gateway's one key check,
    ``identify(app, key)`` what the page may show of who the key is, ``refusal(app, key)``
    what became of a key that no longer signs in."""
    app[CHECK] = check
    app[AUTH_ON] = auth_on
    if identify is not None:
        app[IDENTIFY] = identify
    if refusal is not None:
        app[REFUSAL] = refusal
    app.on_response_prepare.append(_security_headers)
    app.router.add_get("/", index_handler)
    app.router.add_get("/viewer/session", session_handler)
    app.router.add_post("/viewer/login", login_handler)
    app.router.add_post("/viewer/logout", logout_handler)
    app.router.add_get("/viewer/{name}", file_handler)
