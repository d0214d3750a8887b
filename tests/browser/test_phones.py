"""The pages phones use at the table, on a 390x844 screen: each fits the width (nothing runs off the right edge) and
shows what it names, from what the API gives its reader: the games list; the recording page's players' panel (each
player's colour, points and what they hold that the reader may see) and its latest events, numbered once; a seat's
page, which says whose seat it is; a delayed game's page, which says when its broadcast starts and then shows what a
spectator may see; the recording page opened again with no connection, which says when the server last answered
and offers the words that follow the entries waiting at once; the rules for offline use, started as the recording
page opens, in the background, and said when ready; the trait-card table, its genomes told by counts and each fact
once; and the dashboard's points at 100% drawn whole."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from api import ApiSettings, create_app
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import Settings
from tests.helpers.line import Line, line_to
from tests.helpers.offline import (
    RULES_START_MS,
    SHOWN_HERE,
    WAITING,
    HeldBack,
    back_on,
    cut_off,
    opened_offline_ready,
)
from tests.helpers.pages import caught_up, imported
from tests.helpers.phone import (
    GOLDEN,
    PHONE_390,
    fits_the_width,
    logged,
    new_game,
    open_recording,
    settled,
    tap_action,
)
from tests.helpers.servers import MovedClock, serving
from tests.helpers.traits_pages import ACTIONS as TRAITS_ACTIONS
from tests.helpers.traits_pages import TRAITS_GAME, seated_traits_game

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

EVO2 = [line.text for line in parse_game(GOLDEN["evo2"].read_text()).actions]
TIMES = "\N{MULTIPLICATION SIGN}"  # the sign the pages write between a trait and how many of its cards there are
PLACES, SPECIES = ".board-panel[data-place]", ".board-panel[data-species]"  # the trait-card table's panels


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def recorded_evo2(server: str, count: int) -> tuple[str, str]:
    """A new evo2 game with the hand-made game's first `count` actions: its id and recorder token."""
    game, token = new_game(server, parse_game(GOLDEN["evo2"].read_text()))
    if count:
        answer = httpx.post(f"{server}/v1/games/{game}/actions", json={"actions": EVO2[:count]}, headers=bearer(token))
        assert answer.status_code == 200, answer.text
    return game, token


def test_phones_the_games_list_fits_the_width_with_each_games_cells(phone: Any, server: str) -> None:
    finished = imported(server, GOLDEN["evo2"])["game_id"]
    ongoing, _ = recorded_evo2(server, 12)
    page = phone.new_page()
    page.goto(server)
    expect(page.locator("#games tr")).to_have_count(2)
    fits_the_width(page, "header", "header form", "#filters", "#new-game", "#games tr", "#games td:not(:empty)")
    for game, status in ((finished, "over"), (ongoing, "ongoing")):
        row = page.locator(f"#games tr[data-game='{game}']")
        expect(row.locator("td.game a")).to_have_text(game[:8])
        expect(row.locator("td[data-label=players]")).to_have_text("ann, ben, cat")
        expect(row.locator("td[data-label=status]")).to_have_text(status)
    expect(page.locator(f"#games tr[data-game='{finished}'] td[data-label=result]")).to_contain_text("1 ann 19/4")


def hex_to_rgb(colour: str) -> str:
    red, green, blue = (int(colour[at : at + 2], 16) for at in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


# Each player's row of the panel: name, points, the cards it names and what it says they hold, and its colour.
PANEL = """() => [...document.querySelectorAll("#players li.player")].map((row) => ({
    name: row.dataset.player,
    points: row.querySelector(".points").textContent,
    named: row.querySelector(".holds").dataset.holds,
    holds: row.querySelector(".holds").textContent,
    colour: getComputedStyle(row.querySelector(".swatch")).backgroundColor,
}))"""


def test_phones_the_recording_page_shows_each_players_colour_points_and_cards_and_numbers_events_once(
    phone: Any, server: str
) -> None:
    game, token = recorded_evo2(server, 40)
    page = open_recording(phone, server, game, token)
    fits_the_width(page, "header", "#board svg", "#players li", "#choices button", "#recent li")
    state = httpx.get(f"{server}/v1/games/{game}/state", headers=bearer(token)).json()["state"]
    rows = page.evaluate(PANEL)
    assert [row["name"] for row in rows] == ["ann", "ben", "cat"]
    for row in rows:
        _, mp, _, cards, named = state["players"][row["name"]]
        assert row["points"] == f"{mp} MP" and row["named"] == " ".join(named)
        unnamed = f"{cards - len(named)} {'more ' if named else ''}event card{'s' * (cards - len(named) != 1)}"
        said = [*named, *([unnamed] if cards > len(named) else [])]
        assert row["holds"] == (f"holds {', '.join(said)}" if said else "holds nothing"), row
        dinosaur = page.locator(f"#board circle.piece[data-owner='{row['name']}']").first
        assert row["colour"] == hex_to_rgb(dinosaur.get_attribute("fill") or ""), "the panel's colour is the board's"
    events = httpx.get(f"{server}/v1/games/{game}/events?after=0&limit=1000").json()["events"]
    latest = [(event["number"], event["text"]) for event in reversed(events)][:8]
    items = page.locator("#recent li")
    shown = [(int(item.get_attribute("value") or 0), item.text_content()) for item in items.all()]
    assert shown == latest, "each event numbered by the list with its own number, its text not numbered again"
    assert page.locator("#recent").evaluate("(list) => list.tagName + ' ' + getComputedStyle(list).listStyleType") == (
        "OL decimal"
    )


def test_phones_a_seats_page_says_whose_seat_it_is_and_lists_that_seats_hand_alone(browser: Any, server: str) -> None:
    """[TR-24] a hand is its player's: on ann's device ann's cards are listed, ben's counted; the recorder's lists
    both, and a spectator's counts both, each as the state the API gives that reader has them."""
    game, readers = seated_traits_game(server, TRAITS_ACTIONS.index("ann active lake"))
    devices = {who: browser.new_context(**PHONE_390) for who in ("ann", "recorder", "public")}
    try:
        for who, device in devices.items():
            token = readers[who].get("Authorization", "").removeprefix("Bearer ")
            page = device.new_page()
            page.goto(f"{server}/games/{game}/record" + (f"#token={token}" if token else ""))
            settled(page)
            state = httpx.get(f"{server}/v1/games/{game}/state", headers=readers[who]).json()["state"]
            for row in page.evaluate(PANEL):
                hand = state["species"][state["plays"][row["name"]]]["hand"]
                if isinstance(hand, int):
                    assert row["named"] == "" and row["holds"] == f"holds {hand} card{'s' * (hand != 1)}", (who, row)
                else:
                    seen = sorted(trait for trait, count in hand.items() for _ in range(count))
                    assert seen and sorted(row["named"].split()) == seen, (who, row)
                assert row["points"] == f"{state['points'][row['name']]} points", (who, row)
            named = {row["name"]: bool(row["named"]) for row in page.evaluate(PANEL)}
            assert named == {"recorder": {"ann": True, "ben": True}, "ann": {"ann": True, "ben": False}}.get(
                who, {"ann": False, "ben": False}
            ), who
            whose = page.locator("#whose")
            if who == "ann":
                expect(whose).to_have_text("ann's seat")
                expect(whose).to_be_visible()
                fits_the_width(page, "header", "#whose", "#players li", PLACES, SPECIES)
            else:
                expect(whose).to_be_hidden()
    finally:
        for device in devices.values():
            device.close()


DELAY_MINUTES = 10
# A time as the pages write it on this device's clock: the time of day, with the day unless it is today.
ON_THIS_CLOCK = """(at) => {
    const when = new Date(at);
    return when.toDateString() === new Date().toDateString() ? when.toLocaleTimeString() : when.toLocaleString();
}"""


def test_phones_a_delayed_games_page_says_when_its_broadcast_starts_then_shows_what_a_spectator_may_see(
    phone: Any, clocked_server: tuple[str, MovedClock]
) -> None:
    """Before its first event is as old as the delay, a spectator's page says when the broadcast starts, as the
    API tells a spectator, and nothing else of the game; once the server's clock has moved past that, the page,
    looking again, shows the game as it stood then, and says it is behind the table."""
    server, clock = clocked_server
    game, token = recorded_evo2(server, 0)
    delayed = httpx.put(
        f"{server}/v1/games/{game}/broadcast-delay", json={"minutes": DELAY_MINUTES}, headers=bearer(token)
    )
    assert delayed.status_code == 200, delayed.text
    appended = httpx.post(f"{server}/v1/games/{game}/actions", json={"actions": EVO2[:10]}, headers=bearer(token))
    assert appended.status_code == 200, appended.text
    told = httpx.get(f"{server}/v1/games/{game}").json()
    assert told["code"] == "not_yet_broadcast"
    page = phone.new_page()
    page.goto(f"{server}/games/{game}")
    note = page.locator("#broadcast")
    expect(note).to_have_attribute("data-starts", told["broadcast_starts_at"])
    starts = page.evaluate(ON_THIS_CLOCK, told["broadcast_starts_at"])
    expect(note).to_contain_text(f"{DELAY_MINUTES} minutes behind the table: the broadcast starts at {starts},")
    expect(page.locator("#headline")).to_have_text("broadcast with a delay: none of it is that old yet")
    expect(page.locator("#event-list li")).to_have_count(0)
    fits_the_width(page, "header", "#headline", "#broadcast")
    events = httpx.get(f"{server}/v1/games/{game}/events?after=0&limit=1000", headers=bearer(token)).json()["events"]
    last = datetime.fromisoformat(events[-1]["timestamp"])
    clock.move_on(last + timedelta(minutes=DELAY_MINUTES, seconds=1) - clock())  # every event stored is that old
    page.wait_for_selector("body[data-ready=true]", timeout=30_000)  # it looked again
    expect(note).to_have_text(
        f"spectators follow this game {DELAY_MINUTES} minutes behind the table: it is shown as it stood then"
    )
    shown = httpx.get(f"{server}/v1/games/{game}/events?after=0&limit=1000").json()["events"]
    expect(page.locator("#event-list li")).to_have_count(len(shown))
    fits_the_width(page, "header", "#headline", "#broadcast", "#board svg", "#event-list li", ".controls")


def test_phones_a_recording_page_opened_again_offline_says_when_the_server_last_answered_and_offers_what_follows(
    browser: Any, server: str, line: Line
) -> None:
    """An entry waits on the device, judged by the rules on the phone; the page opened again with no connection says
    when the server last answered (kept on the device), and at once, before its rules have started again, shows
    what the entry leads to and offers the words after it, never those of the entry waiting: the same the server
    shows once the connection returns and the entry is sent."""
    context, page, game, token = opened_offline_ready(browser, line.base, GOLDEN["evo2"], device=PHONE_390)
    try:
        cut_off(context, page, line)
        page.wait_for_function(SHOWN_HERE)
        heard = page.locator("#queue-status").get_attribute("data-heard")
        assert heard, "the server answered before the connection was cut"
        tap_action(page, EVO2[0])
        page.wait_for_function(WAITING, arg=1, polling=20)
        page.wait_for_function("() => document.body.dataset.drawnKept === '1'")
        page.reload()
        first = page.wait_for_function("() => document.body.dataset.ready === 'true' && document.body.dataset.shown")
        assert first.json_value() == "kept", "shown at once as the device kept it, before its rules start again"
        offered = page.locator("#choices button").evaluate_all("(buttons) => buttons.map((b) => b.dataset.word)")
        headline = page.locator("#headline").text_content()
        assert offered and EVO2[0].split()[0] not in offered, f"words of the entry waiting are offered: {offered}"
        when = page.evaluate(ON_THIS_CLOCK, int(heard))
        expect(page.locator("#queue-status")).to_have_attribute("data-heard", heard)
        expect(page.locator("#queue-status")).to_have_text(f"1 waiting · last sync {when}")
        fits_the_width(page, "header", "#queue-status", "#queued li", "#players li", "#choices button")
        back_on(context, line)
        page.evaluate("dispatchEvent(new Event('online'))")
        page.wait_for_function(WAITING, arg=0, polling=20, timeout=60_000)
        page.wait_for_function(
            "() => document.body.dataset.shown === 'by-server' && document.body.dataset.ready === 'true'"
        )
        assert logged(server, game, token) == [EVO2[0]]
        expect(page.locator("#headline")).to_have_text(headline or "")
        served = page.locator("#choices button").evaluate_all("(buttons) => buttons.map((b) => b.dataset.word)")
        assert served == offered, "the words offered at once are the server's"
    finally:
        context.close()


@pytest.fixture
def rules_held(tmp_path: Path) -> Iterator[tuple[Line, HeldBack]]:
    """A server whose rules' bundle is held back until the test lets it through, reached through a line."""
    held = HeldBack(create_app(ApiSettings(store=Settings(str(tmp_path / "held.sqlite")))), "/rules.zip")
    with serving(held) as base, line_to(base) as line:
        try:
            yield line, held
        finally:
            held.release()  # before the server stops: it waits for the answers under way


def test_phones_the_offline_rules_start_as_the_recording_page_opens_behind_the_first_tap_and_say_when_ready(
    phone: Any, rules_held: tuple[Line, HeldBack]
) -> None:
    """On the machine itself (as over https) the rules for offline use start once the page is shown, in the
    background: while they start (their bundle held back), the first action is tapped and recorded; the header says
    when they are ready, and the first entry made with no connection is judged and drawn by them at once."""
    line, held = rules_held
    game, token = recorded_evo2(line.base, 0)
    page = open_recording(phone, line.base, game, token)
    status = page.locator("#rules-status")
    expect(status).to_have_text("rules on this device: starting…")
    tap_action(page, EVO2[0])
    expect(page.locator("#message")).to_have_text(f"recorded: {EVO2[0]}")
    settled(page)  # and what may come next offered
    assert status.get_attribute("data-rules") == "starting", "the tap was answered while the rules started"
    fits_the_width(page, "header", "#rules-status", "#players li", "#choices button")
    held.release()
    expect(status).to_have_text("rules on this device: ready for use offline", timeout=RULES_START_MS)
    cut_off(phone, page, line)
    page.wait_for_function(SHOWN_HERE)
    tap_action(page, EVO2[1])
    page.wait_for_function(WAITING, arg=1, polling=20)
    waits = f'"{EVO2[1]}" waits on this device and is sent when the connection returns'
    expect(page.locator("#message")).to_have_text(waits)
    page.wait_for_function(SHOWN_HERE)
    fits_the_width(page, "header", "#rules-status", "#queued li")


def test_phones_the_trait_card_table_tells_genomes_by_counts_and_each_fact_once(phone: Any, server: str) -> None:
    """The finished hand-made game, each Future Genome 42 cards: each trait told once with its number; the
    headline not drawn again on the table; in the viewer, the table's and the species' lines not said again beside
    the board; on the recording page, each player's points and hand in the players' panel, not on the boards."""
    stored = imported(server, TRAITS_GAME)
    game = stored["game_id"]
    state = httpx.get(f"{server}/v1/games/{game}/state").json()["state"]
    page = phone.new_page()
    page.goto(f"{server}/games/{game}")
    page.wait_for_selector("body[data-ready=true]")
    for name, species in state["species"].items():
        counts = Counter(species["future"])
        assert counts.total() == 42
        told = ", ".join(f"{trait} {TIMES}{n}" if n > 1 else trait for trait, n in sorted(counts.items()))
        future = page.locator(f"{SPECIES}[data-species='{name}'] [data-future]")
        expect(future).to_have_text(f"Future Genome (42): {told}")
        words = re.findall(r"[a-z]+", (future.text_content() or "").split(":", 1)[1])
        assert len(words) == len(set(words)), f"a trait told twice: {words}"
    headline = httpx.get(f"{server}/v1/games/{game}/view").json()["headline"]
    assert page.locator("body").inner_text().count(headline) == 1, "the headline is said once"
    expect(page.locator("#table")).to_be_hidden()
    expect(page.locator("#players")).to_be_hidden()
    fits_the_width(page, "header", PLACES, SPECIES, f"{SPECIES} [data-future]", ".controls")
    recording = open_recording(phone, server, game, stored["recorder_token"])
    for player in state["plays"]:
        expect(recording.locator(f"#players li[data-player='{player}'] .points")).to_have_text(
            f"{state['points'][player]} points"
        )
    boards = recording.locator(SPECIES).all_inner_texts()
    assert boards and not any("points" in board for board in boards), "each player's points are the panel's"
    hands = recording.locator(f"{SPECIES} [data-hand], {SPECIES} [data-hand-count]")
    assert hands.count() == 0, "the hands are the panel's"
    fits_the_width(recording, "header", PLACES, SPECIES, "#players li")


# Each point of the charts' datasets drawn as circles at a value of 1 (100%): how far its top lies below the
# canvas's, and whether the pixel just inside its top is drawn (a point clipped at the chart's area is not).
POINTS_AT_THE_TOP = """(id) => {
    const chart = Chart.getChart(document.querySelector(`#${id} canvas`));
    const ratio = chart.currentDevicePixelRatio, found = [];
    chart.data.datasets.forEach((dataset, index) => {
        const meta = chart.getDatasetMeta(index);
        dataset.data.forEach((value, at) => {
            const point = meta.data[at];
            if ((typeof value === "object" ? value && value.y : value) !== 1 || !point || !point.options
                || point.options.pointStyle !== "circle") return;
            const top = point.y - point.options.radius;
            const pixel = chart.ctx.getImageData(Math.round(point.x * ratio), Math.round((top + 2) * ratio), 1, 1);
            found.push({ top, drawn: pixel.data[3] > 0 });
        });
    });
    return found;
}"""


def test_phones_the_dashboards_points_at_100_percent_are_drawn_whole(phone: Any, server: str) -> None:
    imported(server, GOLDEN["evo2"])  # one finished game: its winner's seat and opening place won every game
    caught_up(server)
    page = phone.new_page()
    page.goto(f"{server}/dashboard?ruleset=evo2")
    page.wait_for_selector("body[data-ready=true]")
    fits_the_width(page, "header", "#charts .chart", "#charts canvas", "#ruleset-panels .chart")
    whole = []
    for chart in ("seats-chart", "places-chart", "seat-advantage-chart"):
        points = page.evaluate(POINTS_AT_THE_TOP, chart)
        assert all(point["top"] >= 0 and point["drawn"] for point in points), (chart, points)
        whole += points
    assert whole, "no point at 100% was drawn"
