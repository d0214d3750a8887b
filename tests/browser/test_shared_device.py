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
from tests.helpers.line import Line, line_to
from tests.helpers.offline import WAITING, back_on, cut_off
from tests.helpers.phone import GOLDEN, PHONE, logged, new_game, open_recording, settled
from tests.helpers.traits_pages import ACTIONS, seated_traits_game

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

HOUR_MS = 3600 * 1000
# The page opened again once the device has forgotten the game.
FORGOTTEN = "() => document.body.dataset.forgotten === 'true' && document.body.dataset.ready === 'true'"
ENTRY = "order ann ben cat"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Heard]]:
    with heard_server(str(tmp_path / "shared.sqlite")) as base_and_app:
        yield base_and_app


@pytest.fixture
def line(served: tuple[str, Heard]) -> Iterator[Line]:
    with line_to(served[0]) as through:
        yield through


@pytest.fixture
def heard(served: tuple[str, Heard], line: Line) -> tuple[str, Heard]:
    """The server reached through `line`, which the test may cut, and the app that hears every request."""
    return line.base, served[1]


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


def with_an_entry_waiting(phone: Any, server: str, line: Line, also: bool = False) -> tuple[str, str, Any, Any]:
    """An evo2 game on the phone, an entry typed with no connection waiting: the game, the recorder's token, the
    page, and (`also`) a second tab of the game opened before the connection was cut (else None)."""
    game, token = new_game(server, parse_game(GOLDEN["evo2"].read_text()))
    page = open_recording(phone, server, game, token)
    other = opened_without_a_token(phone, server, game) if also else None
    cut_off(phone, page, line)
    page.locator("#tools summary").tap()
    page.locator("#typed").fill(ENTRY)
    page.locator("#typed").press("Enter")
    page.wait_for_function(WAITING, arg=1, polling=20)
    return game, token, page, other


def asked_to_forget_with_an_entry_waiting(phone: Any, server: str, line: Line) -> tuple[str, str, Any]:
    """An entry waiting (`with_an_entry_waiting`), then "forget this device" tapped and the connection back: the
    entry shown, and the device not forgotten, until the person chooses. The game, the recorder's token and the
    page."""
    game, token, page, _ = with_an_entry_waiting(phone, server, line)
    page.locator("#this-device summary").tap()
    page.locator("#forget-device").tap()
    expect(page.locator("#forgetting-text")).to_contain_text("1 entry waits on this device, not sent yet")
    expect(page.locator("#queued li")).to_have_text([ENTRY])
    assert page.evaluate(f"localStorage.getItem('evo-ledger-record:{game}')"), "not forgotten before the person chose"
    back_on(phone, line)
    page.evaluate("dispatchEvent(new Event('online'))")  # nothing is sent unasked while the person chooses
    return game, token, page


def test_forget_entries_waiting_are_shown_and_dropped_by_the_person_before_the_device_forgets(
    phone: Any, heard: tuple[str, Heard], line: Line
) -> None:
    server, _ = heard
    game, token, page = asked_to_forget_with_an_entry_waiting(phone, server, line)
    page.locator("#drop-then-forget").tap()
    page.wait_for_function(FORGOTTEN)
    assert page.evaluate("(game) => queuedEntries(game)", game) == [], "dropped from the device"
    assert found_on_device(page, game, [token]) == []
    assert logged(server, game, token) == [], "dropped, not sent"


def test_forget_entries_waiting_are_shown_and_sent_by_the_person_before_the_device_forgets(
    phone: Any, heard: tuple[str, Heard], line: Line
) -> None:
    server, _ = heard
    game, token, page = asked_to_forget_with_an_entry_waiting(phone, server, line)
    page.locator("#send-then-forget").tap()
    page.wait_for_function(FORGOTTEN)
    assert page.evaluate("(game) => queuedEntries(game)", game) == [], "sent, then forgotten"
    assert logged(server, game, token) == [ENTRY]


# The kept token's time made to pass: as kept on the device, and as the open page holds it.
PASSED = """(kept) => {
    localStorage.setItem(kept, JSON.stringify({ ...JSON.parse(localStorage.getItem(kept)), until: Date.now() - 1 }));
    ownToken.until = Date.now() - 1;
}"""


def test_forget_the_recording_page_copies_its_token_to_no_storage_the_tab_s_other_pages_read(
    phone: Any, heard: tuple[str, Heard]
) -> None:
    server, _ = heard
    game, token = new_game(server, parse_game(GOLDEN["evo2"].read_text()))
    page = open_recording(phone, server, game, token)
    assert page.evaluate("sessionStorage.getItem('evo-ledger-token')") is None, "the tab's pages would read with it"
    assert found_on_device(page, game, [token]) == [f"localStorage evo-ledger-record:{game}"]


def test_forget_entries_another_tab_queued_are_shown_before_the_device_forgets(
    phone: Any, heard: tuple[str, Heard], line: Line
) -> None:
    server, _ = heard
    game, _, queuing, forgetting = with_an_entry_waiting(phone, server, line, also=True)
    forgetting.locator("#this-device summary").tap()
    forgetting.locator("#forget-device").tap()
    expect(forgetting.locator("#forgetting-text")).to_contain_text("1 entry waits on this device, not sent yet")
    expect(forgetting.locator("#queued li")).to_have_text([ENTRY])
    assert len(queuing.evaluate("(game) => queuedEntries(game)", game)) == 1, "kept until the person chooses"


def test_forget_a_token_past_its_time_is_sent_no_more_and_the_page_forgets_it(
    phone: Any, heard: tuple[str, Heard]
) -> None:
    server, app = heard
    game, token = new_game(server, parse_game(GOLDEN["evo2"].read_text()))
    page = open_recording(phone, server, game, token)
    page.evaluate(PASSED, f"evo-ledger-record:{game}")
    assert page.evaluate("tokenHeaders()") == {}, "a token past its time would be sent"
    heard_before = len(app.requests)
    page.evaluate("(game) => api(`/v1/games/${game}/view?at=1`)", game)
    asked = [request for request in app.requests[heard_before:] if request[0].endswith("/view")]
    assert asked and all(not carried for _, carried in asked), "a token past its time was sent"
    page.evaluate("expireWhenDue()")  # the timer set for the time the test made pass
    page.wait_for_function(FORGOTTEN)


def test_forget_a_token_past_its_time_cannot_be_kept_again(phone: Any, heard: tuple[str, Heard], line: Line) -> None:
    server, _ = heard
    game, _, page, _ = with_an_entry_waiting(phone, server, line)
    kept = f"evo-ledger-record:{game}"
    page.evaluate(PASSED, kept)
    page.evaluate("expireKept()")
    expect(page.locator("#forgetting-text")).to_contain_text("1 entry waits on this device, not sent yet")
    expect(page.locator("#keep-hours")).to_be_hidden()
    page.evaluate("keepFor(24)")
    assert page.evaluate("(kept) => JSON.parse(localStorage.getItem(kept)).until <= Date.now()", kept)


def test_forget_a_page_opened_past_the_token_s_time_shows_the_entries_waiting_to_drop_before_it_forgets(
    phone: Any, heard: tuple[str, Heard], line: Line
) -> None:
    server, app = heard
    game, token, page, _ = with_an_entry_waiting(phone, server, line)
    page.evaluate(PASSED, f"evo-ledger-record:{game}")  # nor does this page send it once the connection is back
    page.close()
    back_on(phone, line)
    heard_before = len(app.requests)
    following = opened_without_a_token(phone, server, game)
    expect(following.locator("#queued li")).to_have_text([ENTRY])
    expect(following.locator("#drop-then-forget")).to_be_visible()
    expect(following.locator("#send-then-forget")).to_be_hidden()
    assert app.tokens_since(heard_before) == [], "a token past its time was sent"
    following.locator("#drop-then-forget").tap()
    following.wait_for_function(FORGOTTEN)
    assert following.evaluate("(game) => queuedEntries(game)", game) == []
    assert found_on_device(following, game, [token]) == []
    assert logged(server, game, token) == [], "dropped, not sent"


def test_forget_any_page_of_the_site_drops_what_a_device_kept_for_a_game_past_its_time(
    phone: Any, heard: tuple[str, Heard]
) -> None:
    server, _ = heard
    page = phone.new_page()
    page.goto(f"{server}/")  # the games list
    page.evaluate(
        "for (const [game, left] of [['old', -1], ['new', 1e6]]) {"
        "  localStorage.setItem(`evo-ledger-record:${game}`,"
        "    JSON.stringify({ token: 't', hours: 1, until: Date.now() + left }));"
        "  for (const what of ['drawn', 'heard']) localStorage.setItem(`evo-ledger-${what}:${game}`, 'kept');"
        "}"
    )
    page.reload()
    page.wait_for_load_state()
    for what in ("record", "drawn", "heard"):  # the token, what the phone's rules drew, when the server answered
        assert page.evaluate(f"localStorage.getItem('evo-ledger-{what}:old')") is None, what
        assert page.evaluate(f"localStorage.getItem('evo-ledger-{what}:new')") is not None, what
