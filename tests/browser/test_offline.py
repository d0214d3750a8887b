"""The recording page with no connection (the browser context offline): it opens from its service worker, its
entries wait on the device through a reload, and they are sent in order once the connection returns; an entry
another device overtook, or one the rules refuse, stops the queue until the recorder decides."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from starlette.types import ASGIApp, Receive, Scope, Send

from api import ApiSettings, create_app
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import Settings
from tests.browser.test_record import GOLDEN, PHONE, logged, new_game, settled
from tests.e2e.test_stream import serving

ACTIONS = [line.text for line in parse_game(GOLDEN["evo2"].read_text()).actions]
WAITING = "(count) => document.body.dataset.waiting === String(count) && document.body.dataset.ready === 'true'"


class Counted:
    """The app, with the path of every HTTP request it is sent."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.paths: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.paths.append(f"{scope['method']} {scope['path']}")
        await self.app(scope, receive, send)


@pytest.fixture
def counted(tmp_path: Path) -> Iterator[tuple[str, Counted]]:
    settings = ApiSettings(store=Settings(str(tmp_path / "offline.sqlite")), stream_poll_seconds=0.5)
    app = Counted(create_app(settings))
    with serving(app) as base:
        yield base, app


@pytest.fixture
def recorder(browser: Any, counted: tuple[str, Counted]) -> Iterator[tuple[Any, Any, str, str]]:
    """The recording page of a new evo2 game on a phone, served by its service worker: the context, the page, the
    game and its recorder token."""
    base, _ = counted
    game, token = new_game(base, parse_game(GOLDEN["evo2"].read_text()))
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{base}/games/{game}/record#token={token}")
    settled(page)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    page.reload()  # read once through the worker, which keeps the answers and the rules
    settled(page)
    page.wait_for_function("() => document.body.dataset.rulesKept === 'true'")
    yield context, page, game, token
    context.close()


# A request the page sends through its service worker once the connection is cut: it fails once the cut has
# reached the worker too (the browser tells the page's and the worker's network apart, a moment apart).
CUT_OFF = """async () => {
    for (;;) {
        try { await fetch("/v1/kits", { method: "POST" }); } catch (error) { return true; }
        await new Promise((resolve) => setTimeout(resolve, 20));
    }
}"""


def cut_off(context: Any, page: Any) -> None:
    context.set_offline(True)
    page.evaluate(CUT_OFF)


def type_entry(page: Any, action: str, waiting: int) -> None:
    """The action typed in notation and recorded; then `waiting` entries wait on the device."""
    tools = page.locator("#tools")
    if not tools.evaluate("(details) => details.open"):
        page.locator("#tools summary").click()
    page.locator("#typed").fill(action)
    page.locator("#typed").press("Enter")
    page.wait_for_function(WAITING, arg=waiting, polling=20)


def back_online(context: Any, page: Any) -> None:
    """The connection returns, and the page hears of it at once."""
    context.set_offline(False)
    page.evaluate("dispatchEvent(new Event('online'))")


def overtaken_back_online(base: str, context: Any, page: Any, game: str, token: str) -> None:
    """Another device records the game's first action, then the connection returns: the page shows both lines."""
    other = httpx.post(
        f"{base}/v1/games/{game}/actions",
        json={"actions": ["order cat ben ann"], "expected_version": 1},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert other.status_code == 200, other.text
    back_online(context, page)
    expect(page.locator("#stopped-text")).to_contain_text("another device recorded meanwhile: order cat ben ann")


def test_offline_entries_wait_on_the_device_through_a_reload_and_are_stored_once_back_online(
    counted: tuple[str, Counted], recorder: tuple[Any, Any, str, str]
) -> None:
    base, app = counted
    context, page, game, token = recorder
    cut_off(context, page)
    asked_before = len(app.paths)
    for count, action in enumerate(ACTIONS[:3], start=1):
        type_entry(page, action, count)
    expect(page.locator("#status")).to_have_text("offline")
    expect(page.locator("#queue-status")).to_contain_text("3 waiting")
    page.reload()
    page.wait_for_function(WAITING, arg=3, polling=20)
    expect(page.locator("#queued li")).to_have_text(ACTIONS[:3])
    expect(page.locator("#headline")).not_to_be_empty()  # the position as the server last gave it
    assert app.paths[asked_before:] == [], logged(base, game, token)
    back_online(context, page)
    page.wait_for_function(WAITING, arg=0, polling=20)
    expect(page.locator("#status")).to_have_text("online")
    assert logged(base, game, token) == ACTIONS[:3]
    page.reload()  # the keys sent again store nothing twice
    settled(page)
    assert logged(base, game, token) == ACTIONS[:3]


def test_offline_an_entry_another_device_overtook_shows_both_lines_until_the_recorder_decides(
    counted: tuple[str, Counted], recorder: tuple[Any, Any, str, str]
) -> None:
    base, _ = counted
    context, page, game, token = recorder
    cut_off(context, page)
    type_entry(page, ACTIONS[0], 1)
    type_entry(page, ACTIONS[1], 2)
    overtaken_back_online(base, context, page, game, token)
    expect(page.locator("#stopped-text")).to_contain_text(f"Waiting here: {ACTIONS[0]}")
    page.locator("#drop-entry").click()
    page.wait_for_function(WAITING, arg=0, polling=20)
    assert logged(base, game, token) == ["order cat ben ann", ACTIONS[1]]


def test_offline_an_entry_kept_on_the_game_as_it_now_stands_and_refused_there_is_entered_again(
    counted: tuple[str, Counted], recorder: tuple[Any, Any, str, str]
) -> None:
    """[E2-01] an entry overtaken by another device's, kept to be sent on the game as it now stands, is refused by
    the server, which judges every entry: its refusal is shown with its ruling, and the entry given back to be
    changed is sent in its place; the entry after it, now out of its phase, is dropped."""
    base, _ = counted
    context, page, game, token = recorder
    cut_off(context, page)
    type_entry(page, "order ann ben cat", 1)
    type_entry(page, "climate cw", 2)
    overtaken_back_online(base, context, page, game, token)
    page.locator("#keep-entry").click()
    expect(page.locator("#stopped-text")).to_contain_text("refused [E2-01]: order ann ben cat")
    page.locator("#reenter-entry").click()
    expect(page.locator("#typed")).to_have_value("order ann ben cat")
    page.locator("#typed").fill("climate acw")
    page.locator("#typed").press("Enter")
    expect(page.locator("#stopped-text")).to_contain_text("refused [E2-01]: climate cw")  # now out of its phase
    page.locator("#drop-entry").click()
    page.wait_for_function(WAITING, arg=0, polling=20)
    assert logged(base, game, token) == ["order cat ben ann", "climate acw"]


def test_offline_an_illegal_entry_is_refused_by_the_rules_on_the_device_and_waits_for_nothing(
    counted: tuple[str, Counted], recorder: tuple[Any, Any, str, str]
) -> None:
    """[E2-07] ann, outbid, bids again at once, and only with what she holds: with no connection, the recorder's
    phone judges the entry with the rules it runs itself, names the ruling and keeps nothing."""
    base, app = counted
    context, page, game, token = recorder
    cut_off(context, page)
    page.wait_for_function("() => document.body.dataset.rules === 'ready'", timeout=60_000)
    asked_before = len(app.paths)
    entries = [ACTIONS[0], "climate cw", "draw legs", "draw eggs"]
    for count, action in enumerate(entries, start=1):
        type_entry(page, action, count)
    page.locator("#typed").fill("ann bid 9 legs")
    page.locator("#typed").press("Enter")
    expect(page.locator("#message")).to_contain_text("refused [E2-07], by the rules on this device")
    assert page.evaluate("() => document.body.dataset.waiting") == "4"
    assert app.paths[asked_before:] == []
    back_online(context, page)
    page.wait_for_function(WAITING, arg=0, polling=20)
    assert logged(base, game, token) == entries
