"""The pages people open in a browser: the games at `/`, the replay viewer at `/games/{id}`, the dashboard at
`/dashboard`, and their assets under `/static`, every one shipped inside the package (no page or asset loads
anything from another host). The pages read the public `/v1` API, with the reader's token where one is given."""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

router = APIRouter(include_in_schema=False)
STATIC = resources.files("api") / "static"


def static_files() -> StaticFiles:
    return StaticFiles(packages=[("api", "static")])


@router.get("/docs", response_class=HTMLResponse)
def api_reference() -> HTMLResponse:
    """Swagger UI, from the package's own copy: no validator badge, nothing fetched from another host."""
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="evo-ledger: the HTTP API",
        swagger_js_url="/static/swagger-ui/swagger-ui-bundle.js",
        swagger_css_url="/static/swagger-ui/swagger-ui.css",
        swagger_favicon_url="/static/favicon.svg",
        swagger_ui_parameters={"validatorUrl": None},
    )


@router.get("/", response_class=HTMLResponse)
def games_page() -> str:
    return (STATIC / "games.html").read_text(encoding="utf-8")


@router.get("/dashboard", response_class=HTMLResponse)
def dashboard_page() -> str:
    return (STATIC / "dashboard.html").read_text(encoding="utf-8")


@router.get("/games/{game_id}", response_class=HTMLResponse)
def viewer_page(game_id: str) -> str:
    return (STATIC / "viewer.html").read_text(encoding="utf-8")
