"""What every browser test uses: Debian's Chromium driven by Playwright (skipped with a message outside CI when it
is missing, failing under CI=true), `evo-ledger serve`'s app on localhost over a fresh database, and a page that
refuses, and counts, any request to another host."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect, sync_playwright

from tests.helpers.browser import CHROMIUM, FLAGS, INSTALL
from tests.helpers.line import Line, line_to
from tests.helpers.phone import PHONE_390
from tests.helpers.servers import MovedClock, running_server

TIMEOUT_MS = 20_000
expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).is_file():
        message = f"Chromium is not at {CHROMIUM} (EVO_CHROMIUM): install it with `{INSTALL}`"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with running_server(str(tmp_path / "viewer.sqlite")) as base:
        yield base


@pytest.fixture
def line(server: str) -> Iterator[Line]:
    """A line to `server` that the test cuts (`cut_off`): a phone taken offline is opened through it."""
    with line_to(server) as through:
        yield through


@pytest.fixture
def clocked_server(tmp_path: Path) -> Iterator[tuple[str, MovedClock]]:
    """A server as `server` is, whose clock the test moves on."""
    clock = MovedClock()
    with running_server(str(tmp_path / "clocked.sqlite"), clock=clock) as base:
        yield base, clock


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    """A browser context at a phone's 390x844 (a module may give its own `phone`)."""
    context = browser.new_context(**PHONE_390)
    yield context
    context.close()


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    """A page that refuses, and counts, any request to another host, and counts what its content security
    policy refused."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT_MS)
    opened.elsewhere = []
    opened.refused = []
    opened.on("console", lambda message: refused_by_policy(opened.refused, message.text))

    def route(request_route: Any) -> None:
        host = urlsplit(request_route.request.url).hostname
        if host not in ("127.0.0.1", "localhost"):
            opened.elsewhere.append(request_route.request.url)
            request_route.abort()
        else:
            request_route.continue_()

    opened.route("**/*", route)
    yield opened
    assert opened.elsewhere == [], f"requests to another host: {opened.elsewhere}"
    assert opened.refused == [], f"what the pages' policy refused: {opened.refused}"
    context.close()


def refused_by_policy(refused: list[str], text: str) -> None:
    if "Content Security Policy" in text:
        refused.append(text)
