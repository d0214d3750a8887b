"""The pages people open in a browser: the games at `/`, the replay viewer at `/games/{id}`, the recording page
at `/games/{id}/record` (with its service worker at `/sw.js`), the kit editor at `/kits/new`, the dashboard at
`/dashboard`, a competition's page at `/competitions/{id}`, the people at `/people`, and their assets
under `/static`, every one shipped inside the package (no page or asset loads anything from another host). The
pages read the public `/v1` API, with the reader's token where one is given."""

from __future__ import annotations

import base64
import hashlib
import re
from importlib import resources

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import ApiError
from api.rules_bundle import rules_bundle

router = APIRouter(include_in_schema=False)
STATIC = resources.files("api") / "static"

# What a page may load and run: its own host's scripts, styles, images and API, in no other site's frame.
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": POLICY,
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


class WithHeaders:
    """An ASGI app whose every answer carries `headers` too."""

    def __init__(self, app: ASGIApp, headers: dict[str, str]) -> None:
        self.app = app
        self.headers = [(name.lower().encode(), value.encode()) for name, value in headers.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *self.headers]}
            await send(message)

        await self.app(scope, receive, sending)


def static_files() -> ASGIApp:
    """The shipped assets, with the pages' headers: a page's file opened as an asset is held to them too."""
    return WithHeaders(StaticFiles(packages=[("api", "static")]), PAGE_HEADERS)


def page(name: str) -> HTMLResponse:
    return HTMLResponse((STATIC / name).read_text(encoding="utf-8"), headers=PAGE_HEADERS)


def inline_script_sources(html: str) -> str:
    """The CSP sources that allow a page's inline scripts, each by its hash."""
    scripts = re.findall(r"<script>(.*?)</script>", html, flags=re.DOTALL)
    return " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in scripts)


# The way back from the API reference to the site: the bar the other pages open with, styled in place (the
# reference's policy allows inline styles for its widgets).
SITE_BAR = (
    '<header style="display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; background: #2f4f4f; '
    'color: #fff; font-family: system-ui, sans-serif"><strong>evo-ledger</strong> '
    '<a href="/" style="color: #fff">games</a> <a href="/dashboard" style="color: #fff">dashboard</a></header>'
)


@router.get("/docs", response_class=HTMLResponse)
def api_reference() -> HTMLResponse:
    """Swagger UI, from the package's own copy: no validator badge, nothing fetched from another host, under the
    site's bar with its links back to the games and the dashboard. Its starting script is inline, allowed by its
    hash; its widgets set styles of their own."""
    reference = get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="evo-ledger: the HTTP API",
        swagger_js_url="/static/swagger-ui/swagger-ui-bundle.js",
        swagger_css_url="/static/swagger-ui/swagger-ui.css",
        swagger_favicon_url="/static/favicon.svg",
        swagger_ui_parameters={"validatorUrl": None},
    )
    html = bytes(reference.body).decode("utf-8").replace("<body>", '<body style="margin: 0">' + SITE_BAR, 1)
    policy = POLICY.replace("script-src 'self'", f"script-src 'self' {inline_script_sources(html)}").replace(
        "style-src 'self'", "style-src 'self' 'unsafe-inline'"
    )
    return HTMLResponse(html, headers={**PAGE_HEADERS, "Content-Security-Policy": policy})


@router.get("/", response_class=HTMLResponse)
def games_page() -> HTMLResponse:
    return page("games.html")


@router.get("/dashboard", response_class=HTMLResponse)
def dashboard_page() -> HTMLResponse:
    return page("dashboard.html")


@router.get("/games/{game_id}", response_class=HTMLResponse)
def viewer_page(game_id: str) -> HTMLResponse:
    return page("viewer.html")


@router.get("/games/{game_id}/record", response_class=HTMLResponse)
def recording_page(game_id: str) -> HTMLResponse:
    return page("record.html")


@router.get("/competitions/{competition_id}", response_class=HTMLResponse)
def competition_page(competition_id: str) -> HTMLResponse:
    """A competition's standings and its games by round and table, read through the API."""
    return page("competition.html")


@router.get("/people", response_class=HTMLResponse)
def people_page() -> HTMLResponse:
    """Every person the API lists, searched, and a keeper's changes to one: rename, merge, split."""
    return page("people.html")


@router.get("/kits/new", response_class=HTMLResponse)
def kit_editor_page() -> HTMLResponse:
    """The kit editor: a new kit, or a copy of the one `?from=` names (a kit's name or hash)."""
    return page("kits.html")


@router.get("/ca.crt")
def tls_authority(request: Request) -> Response:
    """The certificate of the authority that signed the server's own (`evo-ledger tls`), for a phone to trust once;
    404 where the server speaks plain http."""
    authority: bytes | None = request.app.state.settings.tls_authority
    if authority is None:
        raise ApiError(404, "no_tls", "this server speaks plain http: it has no certificate authority to trust")
    headers = {**PAGE_HEADERS, "Content-Disposition": 'attachment; filename="evo-ledger-ca.crt"'}
    return Response(authority, media_type="application/x-x509-ca-cert", headers=headers)


@router.get("/rules.zip")
def rules_zip(request: Request) -> Response:
    """The installed rulesets for the browser's Python (`api.rules_bundle`), kept by the browser until they
    change."""
    bundle, tag = rules_bundle()
    if request.headers.get("if-none-match") == f'"{tag}"':
        return Response(status_code=304, headers={"ETag": f'"{tag}"'})
    headers = {**PAGE_HEADERS, "ETag": f'"{tag}"', "Cache-Control": "no-cache"}
    return Response(bundle, media_type="application/zip", headers=headers)


@router.get("/rules-worker.js")
def rules_worker() -> Response:
    """The worker that runs the rules in the browser; its policy lets it compile Pyodide's WebAssembly, which the
    pages' own does not."""
    script = (STATIC / "rules-worker.js").read_text(encoding="utf-8")
    policy = POLICY.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")
    headers = {**PAGE_HEADERS, "Content-Security-Policy": policy, "Cache-Control": "no-cache"}
    return Response(script, media_type="text/javascript", headers=headers)


@router.get("/sw.js")
def service_worker() -> Response:
    """The recording page's service worker, from the site's root so that it serves the pages under it; asked
    again each time the browser looks for a new one."""
    script = (STATIC / "sw.js").read_text(encoding="utf-8")
    headers = {**PAGE_HEADERS, "Cache-Control": "no-cache"}
    return Response(script, media_type="text/javascript", headers=headers)
