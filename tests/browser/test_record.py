"""The recording page on a phone (a 360x640 viewport, touch): whole games entered by taps alone, refusals told with
their ruling, and two devices racing on one step."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from evo_ledger.game.notation import parse_game
from tests.helpers.phone import (
    GOLDEN,
    PHONE,
    logged,
    new_game,
    open_recording,
    settled,
    settled_for,
    tap_action,
    tap_words,
)
from tests.helpers.servers import ADMIN, MovedClock
from tests.helpers.traits_pages import ACTIONS, seated_traits_game

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(**PHONE)
    yield context
    context.close()


def entered(page: Any) -> list[str]:
    return [text.strip() for text in page.locator("#words .word").all_text_contents()]


@pytest.mark.parametrize("ruleset", sorted(GOLDEN))
def test_record_a_whole_golden_game_by_taps_alone(browser: Any, phone: Any, server: str, ruleset: str) -> None:
    """Long by design: every word of every action of a whole game (190 to 234 actions, three or four taps each) is
    tapped on the page, which asks the server for the choices after each tap and for the position after each
    entry, as a phone at the table does."""
    parsed = parse_game(Path(GOLDEN[ruleset]).read_text())
    game, token = new_game(server, parsed)
    page = open_recording(phone, server, game, token)
    actions = [line.text for line in parsed.actions]
    found = settled_for(page, actions[0])
    for action, following in zip(actions, [*actions[1:], ""], strict=True):
        found = settled_for(page, following, tap_action(page, action, found))
        assert found["message"] == f"recorded: {action}"
    assert logged(server, game, token) == [line.text for line in parsed.actions]


def test_record_an_illegal_tap_is_refused_with_its_ruling_and_stores_nothing(phone: Any, server: str) -> None:
    """[E2-02] a dinosaur moves at most as many steps as its player has legs: a space tapped that no legal move
    reaches is sent, and the rules' refusal is shown."""
    parsed = parse_game(GOLDEN["evo2"].read_text())
    game, token = new_game(server, parsed)
    page = open_recording(phone, server, game, token)
    before_move = next(index for index, line in enumerate(parsed.actions) if " move " in line.text)
    for line in parsed.actions[:before_move]:
        tap_action(page, line.text)
        settled(page)
    version = httpx.get(f"{server}/v1/games/{game}").json()["version"]
    start = parsed.actions[before_move].text.split()[2]
    page.locator("#choices button[data-word='move']").tap()
    settled(page)
    page.locator(f"#board polygon.space[data-space='{start}']").tap()
    settled(page)
    unreached = page.locator("#board polygon.space:not(.offered)").last
    unreached.tap()
    settled(page)
    expect(page.locator("#message")).to_contain_text("no legal action begins")
    page.locator("#record").tap()
    settled(page)
    expect(page.locator("#message")).to_have_class("refused")
    expect(page.locator("#message")).to_contain_text(re.compile(r"refused \[E2-\d\d\]: "))
    assert httpx.get(f"{server}/v1/games/{game}").json()["version"] == version, "nothing was stored"


def test_record_two_devices_on_one_step_store_one_entry_and_the_other_is_told(browser: Any, server: str) -> None:
    parsed = parse_game(GOLDEN["evo2"].read_text())
    game, token = new_game(server, parsed)
    devices = [browser.new_context(**PHONE) for _ in range(2)]
    try:
        # The first hears of the second's entry only as it records.
        devices[0].route("**/stream*", lambda route: route.abort())
        first, second = (open_recording(device, server, game, token) for device in devices)
        for page, order in ((first, "order ann ben cat"), (second, "order ben ann cat")):
            tap_words(page, order)
        second.locator("#record").tap()
        expect(second.locator("#message")).to_have_text("recorded: order ben ann cat")
        first.locator("#record").tap()
        settled(first)
        expect(first.locator("#message")).to_have_class("told")
        expect(first.locator("#message")).to_contain_text("another device recorded first: order ben ann cat")
        assert entered(first) == [word for word in entered(second)], "both are offered the same next step"
        orders = [line for line in logged(server, game, token) if line.startswith("order ")]
        assert orders == ["order ben ann cat"], "one entry stored, once"
    finally:
        for device in devices:
            device.close()


def test_record_a_new_game_set_up_on_the_games_page_on_a_phone(phone: Any, server: str) -> None:
    page = phone.new_page()
    page.goto(server)
    page.locator("#new-game summary").tap()
    page.locator("#kit").select_option("standin-e1-3p")
    page.locator("#players").fill("ann ben rex")
    page.locator("#marks input[data-mark='autosaur']").fill("rex")
    page.locator("#new-game-form button").tap()
    page.wait_for_url(re.compile(r"/games/[0-9a-f-]+/record$"))
    settled(page)
    game = page.url.split("/")[-2]
    assert "#token" not in page.url, "the token leaves the address once kept"
    summary = httpx.get(f"{server}/v1/games/{game}").json()
    assert [player["name"] for player in summary["players"]] == ["ann", "ben", "rex"]
    assert page.locator("#choices button").count() > 0 and page.locator("#headline").inner_text()
    page.close()
    again = phone.new_page()  # a tab of its own: nothing kept for the session
    again.goto(f"{server}/games/{game}/record")
    settled(again)
    kept = again.evaluate("(game) => JSON.parse(localStorage.getItem(`evo-ledger-record:${game}`)).token", game)
    answer = httpx.get(f"{server}/v1/games/{game}/view", headers={"Authorization": f"Bearer {kept}"}).json()
    assert answer["perspectives"], "the device kept the recorder's token for the game"


def test_record_from_a_co_recorders_device_joined_by_its_link_until_it_is_let_go(browser: Any, server: str) -> None:
    parsed = parse_game(GOLDEN["evo2"].read_text())
    game, token = new_game(server, parsed)
    devices = [browser.new_context(**PHONE) for _ in range(2)]
    try:
        recorder = open_recording(devices[0], server, game, token)
        recorder.locator("#devices summary").tap()
        recorder.locator("#device-name").fill("ben's phone")
        recorder.locator("#join-form button").tap()
        expect(recorder.locator('#co-recorders li[data-name="ben\'s phone"]')).to_be_visible()
        assert (recorder.locator("#join-qr").get_attribute("src") or "").startswith("data:image/svg+xml")
        link = recorder.locator("#join-link").get_attribute("href") or ""
        joined = devices[1].new_page()
        joined.goto(link)
        settled(joined)
        tap_action(joined, parsed.actions[0].text)
        expect(joined.locator("#message")).to_have_text(f"recorded: {parsed.actions[0].text}")
        expect(recorder.locator("#recent")).to_contain_text(parsed.actions[0].text, timeout=5_000)
        recorder.locator("#co-recorders button.revoke").tap()
        expect(recorder.locator("#message")).to_have_text("ben's phone records no more")
        tap_action(joined, parsed.actions[1].text)  # the device does not know yet
        expect(joined.locator("#message")).to_contain_text("refused")
        assert logged(server, game, token) == [parsed.actions[0].text], "nothing stored once let go"
        joined.reload()
        settled(joined)
        expect(joined.locator("section.entry")).to_be_hidden()  # it follows the game, as anyone may
    finally:
        for device in devices:
            device.close()


def test_record_the_admin_gives_a_new_recorder_token_and_the_page_says_how_many_co_recorders_it_let_go(
    browser: Any, server: str
) -> None:
    game, token = new_game(server, parse_game(GOLDEN["evo2"].read_text()))
    for name in ("ben's phone", "cat's phone"):
        added = httpx.post(
            f"{server}/v1/games/{game}/co-recorders", json={"name": name}, headers={"Authorization": f"Bearer {token}"}
        )
        assert added.status_code == 201, added.text
    device = browser.new_context(**PHONE)
    try:
        admin = open_recording(device, server, game, ADMIN)
        admin.locator("#devices summary").tap()
        expect(admin.locator("#co-recorders li")).to_have_count(2)
        admin.locator("#new-recorder-token").tap()
        told = "a new recorder token: the old one records no more, and 2 co-recorders let go"
        expect(admin.locator("#message")).to_have_text(told)
        expect(admin.locator("#co-recorders li")).to_have_count(0)
        link = admin.locator("#join-link").get_attribute("href") or ""
        assert link.startswith(f"{server}/games/{game}/record#token=") and not link.endswith(token)
    finally:
        device.close()


def test_record_a_seats_device_joined_by_its_link_shows_that_seats_hand_alone(browser: Any, server: str) -> None:
    """[TR-24] a hand is its player's: the seat's device lists its own hand's cards, the other's as a count."""
    game, readers = seated_traits_game(server, ACTIONS.index("ann active lake"))  # both hands are full
    devices = [browser.new_context(**PHONE) for _ in range(2)]
    try:
        token = readers["recorder"]["Authorization"].removeprefix("Bearer ")
        recorder = open_recording(devices[0], server, game, token)
        recorder.locator("#devices summary").tap()
        recorder.locator("#seat").select_option("ann")
        recorder.locator("#seat-form button").tap()
        expect(recorder.locator("#join-link")).to_have_text("ann joins with this link (shown once)")
        seat = devices[1].new_page()
        seat.goto(recorder.locator("#join-link").get_attribute("href") or "")
        settled(seat)
        expect(seat.locator("#players li[data-player=ann] .holds")).to_have_attribute("data-holds", re.compile(r"\w"))
        expect(seat.locator("#players li[data-player=ben] .holds")).to_have_attribute("data-holds", "")
        assert seat.locator("#devices").is_hidden(), "a seat lets no other device in"
        assert seat.locator("section.entry").is_hidden(), "a seat follows: the recorder records, unless it lets seats"
    finally:
        for device in devices:
            device.close()


# Of the server's clock, which the test moves on: however slow the machine, no event gets that old by itself.
DELAY_MINUTES = 10


def test_record_an_anonymous_viewer_of_a_delayed_game_never_sees_an_event_younger_than_the_delay(
    browser: Any, phone: Any, clocked_server: tuple[str, MovedClock]
) -> None:
    """Set from the recorder's device; a spectator's live viewer is checked against each event's stored time
    whenever it is read, and at last shows every event, once all are older than the delay. The server's clock is
    moved on past the delay for the events it shows at first, then a second at a time for those it holds back."""
    server, clock = clocked_server
    parsed = parse_game(GOLDEN["evo2"].read_text())
    game, token = new_game(server, parsed)
    recorder = {"Authorization": f"Bearer {token}"}
    actions = [line.text for line in parsed.actions]
    recording = open_recording(phone, server, game, token)
    recording.locator("#devices summary").tap()
    recording.locator("#broadcast-delay").fill(str(DELAY_MINUTES))
    recording.locator("#broadcast-form button").tap()
    expect(recording.locator("#message")).to_contain_text(f"spectators follow {DELAY_MINUTES} minutes behind")
    assert httpx.post(f"{server}/v1/games/{game}/actions", json={"actions": actions[:10]}, headers=recorder).is_success
    spectator = browser.new_context(**PHONE)
    try:
        viewer = spectator.new_page()
        viewer.goto(f"{server}/games/{game}")
        expect(viewer.locator("#headline")).to_contain_text("broadcast with a delay: none of it is that old yet")
        clock.move_on(timedelta(minutes=DELAY_MINUTES, seconds=0.5))  # the first ten are older than the delay
        assert httpx.post(
            f"{server}/v1/games/{game}/actions", json={"actions": actions[10:20]}, headers=recorder
        ).is_success
        events = httpx.get(f"{server}/v1/games/{game}/events", headers=recorder).json()["events"]
        stored = {event["number"]: datetime.fromisoformat(event["timestamp"]) for event in events}
        viewer.wait_for_selector("body[data-ready=true]")  # it looked again
        viewer.locator("#live").check()
        seen: set[int] = set()
        while len(seen) < len(stored):
            shown = {
                int(number)
                for number in viewer.locator("#event-list li").evaluate_all(
                    "(items) => items.map((item) => item.dataset.event)"
                )
            }
            read_at = clock()
            younger = [event for event in shown if stored[event] > read_at - timedelta(minutes=DELAY_MINUTES)]
            assert not younger, f"events {younger} were shown before they were {DELAY_MINUTES} minutes old"
            seen = shown
            assert read_at < max(stored.values()) + timedelta(minutes=DELAY_MINUTES, seconds=30), f"shown: {seen}"
            clock.move_on(timedelta(seconds=1))
            viewer.wait_for_timeout(200)
    finally:
        spectator.close()
