"""The recording page with no connection (its line to the server cut, the browser offline): it opens from its
service worker, the rules run on the phone (each entry judged, the position and the next words drawn there), its
entries wait on the device through a reload, and they are sent in order once the connection returns; an entry
another device overtook, or one the server refuses, stops the queue until the recorder decides."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from api import ApiSettings, create_app
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import Settings
from tests.helpers.line import Line, line_to
from tests.helpers.offline import HAND_MADE, SHOWN_HERE, WAITING, back_on, cut_off, opened_offline_ready
from tests.helpers.phone import GOLDEN, PHONE, logged, open_recording, tap_action
from tests.helpers.servers import serving
from tests.helpers.support import ROOT

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

ACTIONS = [line.text for line in parse_game(GOLDEN["evo2"].read_text()).actions]


@pytest.fixture
def lined(tmp_path: Path) -> Iterator[tuple[str, Line]]:
    """A server, and a line to it that the test cuts: the page is opened through the line, the test's own requests
    go to the server."""
    settings = ApiSettings(store=Settings(str(tmp_path / "offline.sqlite")), stream_poll_seconds=0.5)
    with serving(create_app(settings)) as base, line_to(base) as line:
        yield base, line


@pytest.fixture
def recorder(browser: Any, lined: tuple[str, Line]) -> Iterator[tuple[Any, Any, str, str]]:
    """The recording page of a new evo2 game, ready to go offline (`opened_offline_ready`)."""
    context, page, game, token = opened_offline_ready(browser, lined[1].base, GOLDEN["evo2"])
    yield context, page, game, token
    context.close()


def type_entry(page: Any, action: str, waiting: int) -> None:
    """The action typed in notation and recorded; then `waiting` entries wait on the device."""
    tools = page.locator("#tools")
    if not tools.evaluate("(details) => details.open"):
        page.locator("#tools summary").click()
    page.locator("#typed").fill(action)
    page.locator("#typed").press("Enter")
    page.wait_for_function(WAITING, arg=waiting, polling=20)


# Actions typed and recorded one after another in the page, each once the page has shown what the one before led
# to (as `type_entry` does, without a round trip to the test for each).
TYPED_IN_TURN = """async ([actions, waiting]) => {
    const body = document.body;
    const settled = (count) => body.dataset.waiting === String(count) && body.dataset.ready === "true";
    document.getElementById("tools").open = true;
    for (const [index, action] of actions.entries()) {
        document.getElementById("typed").value = action;
        document.getElementById("typed-form").requestSubmit();
        while (!settled(waiting + index + 1)) await new Promise((resolve) => setTimeout(resolve, 2));
    }
}"""


def type_entries(page: Any, actions: list[str], waiting: int) -> None:
    """The actions typed and recorded in turn, behind `waiting` entries that wait on the device."""
    page.evaluate(TYPED_IN_TURN, [actions, waiting])


def back_online(context: Any, page: Any, line: Line) -> None:
    """The connection returns, and the page hears of it at once."""
    back_on(context, line)
    page.evaluate("dispatchEvent(new Event('online'))")


def overtaken_back_online(
    browser: Any, lined: tuple[str, Line], context: Any, page: Any, game: str, token: str
) -> None:
    """Another device (a browser of its own, online) records the game's first action, then the connection returns:
    the page shows both lines."""
    other = browser.new_context(**PHONE)
    elsewhere = open_recording(other, lined[0], game, token)
    type_entry(elsewhere, "order cat ben ann", 0)
    expect(elsewhere.locator("#message")).to_have_text("recorded: order cat ben ann")
    other.close()
    back_online(context, page, lined[1])
    expect(page.locator("#stopped-text")).to_contain_text("another device recorded meanwhile: order cat ben ann")


@pytest.mark.parametrize("ruleset", sorted(HAND_MADE))
def test_offline_a_whole_hand_made_game_is_entered_checked_and_shown_on_the_device_then_stored_as_its_file(
    browser: Any, lined: tuple[str, Line], ruleset: str
) -> None:
    """Long by design: a whole hand-made game (186 to 230 actions) entered with no connection, each judged, and
    the position and next words that follow drawn, by the rules on the phone (Python in the browser, started twice:
    the page is reloaded midway), then sent one by one when the connection returns. [E2-07] [E1-09] [E1-04]
    [TR-07] an illegal entry midway is refused on the phone, naming its ruling."""
    base, line = lined
    name, midway, illegal, ruling = HAND_MADE[ruleset]
    actions = [line.text for line in parse_game((ROOT / "replays" / name).read_text()).actions]
    context, page, game, token = opened_offline_ready(browser, line.base, ROOT / "replays" / name)
    cut_off(context, page, line)
    page.wait_for_function(SHOWN_HERE, timeout=60_000)
    tap_action(page, actions[0])  # the words offered by the rules on the phone
    page.wait_for_function(WAITING, arg=1, polling=20)
    type_entries(page, actions[1:midway], 1)
    page.reload()
    page.wait_for_function("() => !navigator.onLine")  # as the page opened again, the browser may say otherwise
    page.wait_for_function(WAITING, arg=midway, polling=20)
    expect(page.locator("#queued li")).to_have_text(actions[:midway])
    page.wait_for_function(SHOWN_HERE, timeout=60_000)
    type_entry(page, illegal, midway)
    expect(page.locator("#message")).to_contain_text(f"refused [{ruling}], by the rules on this device")
    type_entries(page, actions[midway:], midway)
    drawn_here = page.locator("#headline").text_content()
    back_online(context, page, line)
    page.wait_for_function(WAITING, arg=0, polling=20, timeout=60_000)
    expect(page.locator("#status")).to_have_text("online")
    page.wait_for_function("() => document.body.dataset.shown === 'by-server'")
    assert logged(base, game, token) == actions
    expect(page.locator("#headline")).to_have_text(drawn_here or "")  # the server's position is the one drawn here
    context.close()


def test_offline_a_page_opened_again_shows_the_position_its_service_worker_kept_before_the_rules_are_ready(
    browser: Any, lined: tuple[str, Line]
) -> None:
    """A game past its first few events: the page opened again with no connection asks for the latest events after
    none, which its service worker did not keep (it kept those after a later version), and shows the position all
    the same, from the answers kept, before the rules on the phone draw it."""
    context, page, _, _ = opened_offline_ready(browser, lined[1].base, GOLDEN["evo2"], played=20)
    type_entry(page, ACTIONS[20], 0)  # shown again after it: the events kept are those after a later version
    expect(page.locator("#message")).to_have_text(f"recorded: {ACTIONS[20]}")
    shown_online = page.locator("#headline").text_content()
    assert shown_online, "the page shows a headline online"
    cut_off(context, page, lined[1])
    page.reload()
    first = page.wait_for_function("() => document.body.dataset.ready === 'true' && document.body.dataset.shown")
    assert first.json_value() == "by-server"  # the rules on the phone start only once it is shown
    expect(page.locator("#headline")).to_have_text(shown_online)
    context.close()


def test_offline_an_entry_another_device_overtook_shows_both_lines_until_the_recorder_decides(
    browser: Any, lined: tuple[str, Line], recorder: tuple[Any, Any, str, str]
) -> None:
    base, line = lined
    context, page, game, token = recorder
    cut_off(context, page, line)
    type_entry(page, ACTIONS[0], 1)
    type_entry(page, ACTIONS[1], 2)
    overtaken_back_online(browser, lined, context, page, game, token)
    expect(page.locator("#stopped-text")).to_contain_text(f"Waiting here: {ACTIONS[0]}")
    page.locator("#drop-entry").click()
    page.wait_for_function(WAITING, arg=0, polling=20)
    assert logged(base, game, token) == ["order cat ben ann", ACTIONS[1]]


def test_offline_an_entry_kept_on_the_game_as_it_now_stands_and_refused_there_is_entered_again(
    browser: Any, lined: tuple[str, Line], recorder: tuple[Any, Any, str, str]
) -> None:
    """[E2-01] an entry overtaken by another device's, kept to be sent on the game as it now stands, is refused by
    the server, which judges every entry: its refusal is shown with its ruling, and the entry given back to be
    changed is sent in its place; the entry after it, now out of its phase, is dropped."""
    base, line = lined
    context, page, game, token = recorder
    cut_off(context, page, line)
    type_entry(page, "order ann ben cat", 1)
    type_entry(page, "climate cw", 2)
    overtaken_back_online(browser, lined, context, page, game, token)
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
