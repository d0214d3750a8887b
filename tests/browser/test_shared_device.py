"""A phone shared at the table forgets: "forget this device" on the recording page, or the time it keeps a token for
passing; the next page opened there without a token sends none, and finds neither the token nor the game's hidden
setup kept anywhere in the browser. Entries still waiting to be sent are shown, and sent or dropped, first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from evo_ledger.game.notation import parse_game
from tests.helpers.devices import SETUP_KEPT, Heard, found_on_device, heard_server, hidden_setup
from tests.helpers.offline import WAITING, cut_off
from tests.helpers.phone import GOLDEN, PHONE, logged, new_game, open_recording, settled
from tests.helpers.traits_pages import ACTIONS, seated_traits_game

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

HOUR_MS = 3600 * 1000
# The page opened again once the device has forgotten the game.
FORGOTTEN = "() => document.body.dataset.forgotten === 'true' && document.body.dataset.ready === 'true'"
ENTRY = "order ann ben cat"


@pytest.fixture
def heard(tmp_path: Path) -> Iterator[tuple[str, Heard]]:
    with heard_server(str(tmp_path / "shared.sqlite")) as served:
        yield served


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(**PHONE)
    yield context
    context.close()


def recorded_with_its_setup_kept(phone: Any, server: str) -> tuple[str, str, list[str], Any]:
    """A trait-card game under way (both hands full), recorded on the phone from its link, whose service worker
    has kept the game's setup: the game, the recorder's token, the setup's hidden facts and the page."""
    game, readers = seated_traits_game(server, ACTIONS.index("ann active lake"))
    token = readers["recorder"]["Authorization"].removeprefix("Bearer ")
    page = open_recording(phone, server, game, token)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    page.reload()  # its answers now pass through the service worker
    settled(page)
    page.wait_for_function(SETUP_KEPT, polling=50)
    return game, token, hidden_setup(server, game, readers["recorder"]), page


def opened_without_a_token(phone: Any, server: str, game: str) -> Any:
    page = phone.new_page()
    page.goto(f"{server}/games/{game}/record")
    settled(page)
    return page


def test_forget_a_shared_phone_forgets_and_the_next_page_sends_no_token_nor_finds_the_hidden_setup(
    phone: Any, heard: tuple[str, Heard]
) -> None:
    server, app = heard
    game, token, hidden, page = recorded_with_its_setup_kept(phone, server)
    assert found_on_device(page, game, hidden) == [], "kept sealed under the token"
    page.locator("#this-device summary").tap()
    page.locator("#forget-device").tap()
    page.wait_for_function(FORGOTTEN)
    expect(page.locator("#message")).to_contain_text("this device has forgotten the game's token")
    heard_before = len(app.requests)
    following = opened_without_a_token(phone, server, game)
    expect(following.locator("section.entry")).to_be_hidden()
    assert app.tokens_since(heard_before) == [], "a page opened without a token sent one"
    for opened in (page, following):
        assert found_on_device(opened, game, [token, *hidden]) == [], "the token or the hidden setup is kept"


def test_forget_a_token_is_kept_a_day_unless_the_recorder_chooses_and_forgotten_once_its_time_has_passed(
    phone: Any, heard: tuple[str, Heard]
) -> None:
    server, app = heard
    game, token, hidden, page = recorded_with_its_setup_kept(phone, server)
    kept = f"evo-ledger-record:{game}"
    left = page.evaluate("(kept) => JSON.parse(localStorage.getItem(kept)).until - Date.now()", kept)
    assert 23 * HOUR_MS < left <= 24 * HOUR_MS, "a day by default"
    page.locator("#this-device summary").tap()
    page.locator("#keep-hours").select_option("1")
    left = page.evaluate("(kept) => JSON.parse(localStorage.getItem(kept)).until - Date.now()", kept)
    assert 0 < left <= HOUR_MS, "an hour, as chosen"
    page.evaluate(
        "(kept) => localStorage.setItem(kept, JSON.stringify({ ...JSON.parse(localStorage.getItem(kept)), "
        "until: Date.now() - 1 }))",
        kept,
    )
    page.close()
    heard_before = len(app.requests)
    following = opened_without_a_token(phone, server, game)
    expect(following.locator("#message")).to_contain_text("has forgotten it")
    assert app.tokens_since(heard_before) == [], "a token past its time was sent"
    assert found_on_device(following, game, [token, *hidden]) == [], "the token or the hidden setup is kept"
    assert not following.evaluate(SETUP_KEPT), "the service worker dropped what it kept for the token"


def asked_to_forget_with_an_entry_waiting(phone: Any, server: str) -> tuple[str, str, Any]:
    """An evo2 game on the phone, an entry typed with no connection waiting, then "forget this device" tapped and
    the connection back: the entry shown, and the device not forgotten, until the person chooses. The game, the
    recorder's token and the page."""
    game, token = new_game(server, parse_game(GOLDEN["evo2"].read_text()))
    page = open_recording(phone, server, game, token)
    cut_off(phone, page)
    page.locator("#tools summary").tap()
    page.locator("#typed").fill(ENTRY)
    page.locator("#typed").press("Enter")
    page.wait_for_function(WAITING, arg=1, polling=20)
    page.locator("#this-device summary").tap()
    page.locator("#forget-device").tap()
    expect(page.locator("#forgetting-text")).to_contain_text("1 entry waits on this device, not sent yet")
    expect(page.locator("#queued li")).to_have_text([ENTRY])
    assert page.evaluate(f"localStorage.getItem('evo-ledger-record:{game}')"), "not forgotten before the person chose"
    phone.set_offline(False)
    page.evaluate("dispatchEvent(new Event('online'))")  # nothing is sent unasked while the person chooses
    return game, token, page


def test_forget_entries_waiting_are_shown_and_dropped_by_the_person_before_the_device_forgets(
    phone: Any, heard: tuple[str, Heard]
) -> None:
    server, _ = heard
    game, token, page = asked_to_forget_with_an_entry_waiting(phone, server)
    page.locator("#drop-then-forget").tap()
    page.wait_for_function(FORGOTTEN)
    assert page.evaluate("(game) => queuedEntries(game)", game) == [], "dropped from the device"
    assert found_on_device(page, game, [token]) == []
    assert logged(server, game, token) == [], "dropped, not sent"


def test_forget_entries_waiting_are_shown_and_sent_by_the_person_before_the_device_forgets(
    phone: Any, heard: tuple[str, Heard]
) -> None:
    server, _ = heard
    game, token, page = asked_to_forget_with_an_entry_waiting(phone, server)
    page.locator("#send-then-forget").tap()
    page.wait_for_function(FORGOTTEN)
    assert page.evaluate("(game) => queuedEntries(game)", game) == [], "sent, then forgotten"
    assert logged(server, game, token) == [ENTRY]
