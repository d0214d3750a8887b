"""The pages in a real browser: Debian's Chromium driven by Playwright against `evo-ledger serve`'s app on
localhost. The replay viewer steps through an evo2 and an evo1 game by keys and buttons, its board drawn from the
kit and its occupants those of `/state` at each event; links keep the event; live mode shows an append as it is
recorded; explanations and what-ifs open beside the board; and no page or asset reaches another host. Every control
of the viewer draws (no glyph the fonts lack), the round field jumps to the round typed, the event list scrolls in
its own panel under a header that stays in view, the what-if suggests an action of the game's own ruleset, and the
API reference links back to the site. Screenshots of the viewer are kept in `test-artifacts/`. (A held card shown
only with a token that may see it is the quick tier's browser test, in `test_smoke`.)"""

from __future__ import annotations

import itertools
import re
import zlib
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from evo_ledger.rules.registry import get_ruleset
from evo_ledger.rules.text import NotationError
from tests.helpers.browser import ARTIFACTS
from tests.helpers.pages import imported, open_viewer
from tests.helpers.support import ROOT, ROUND_ONE_AUCTION

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

EVO2_GAME = ROOT / "replays" / "hand-3p-first-game.evo"
EVO1_GAME = ROOT / "replays" / "evo1-hand-3p.evo"
TRAITS_GAME = ROOT / "replays" / "traits-hand-2p.evo"
STEP_BUTTONS = ("#first", "#back", "#forward", "#last", "#phase-back", "#phase-on")
CONTROLS = (
    *STEP_BUTTONS,
    "#at",
    "#round",
    "#live",
    "#explain",
    "#replacement",
    "#what-if button",
    "#token",
    "#token-form button",
)
# Media-control symbols (⏩ to ⏺) that the fonts of a plain Debian install lack: drawn as empty boxes.
MISSING_GLYPHS = re.compile("[\u23e9-\u23fa]")
LAPTOP, PHONE = {"width": 1280, "height": 720}, {"width": 360, "height": 740}


def shown_event(page: Any) -> int:
    return int(page.input_value("#at"))


def board_matches_state(page: Any, server: str, game: str, event: int) -> None:
    """The hexes are the kit's spaces, and each dinosaur drawn stands where `/state` says, at `event`."""
    expect(page.locator("#at")).to_have_value(str(event))
    view = httpx.get(f"{server}/v1/games/{game}/view", params={"at": event}).json()
    state = httpx.get(f"{server}/v1/games/{game}/state", params={"at": event}).json()
    assert page.locator("polygon.space").count() == len(view["layout"]["spaces"])
    drawn = {d.get_attribute("data-space"): d.get_attribute("data-owner") for d in page.locator("circle.piece").all()}
    assert drawn == state["occupants"]
    assert page.text_content("#headline") == f"event {event} · {view['headline']}"


@pytest.mark.parametrize("path", [EVO2_GAME, EVO1_GAME], ids=["evo2", "evo1"])
def test_the_viewer_steps_through_a_game_by_keys_and_buttons(page: Any, server: str, path: Path) -> None:
    game = imported(server, path)["game_id"]
    open_viewer(page, server, game, at=30)
    board_matches_state(page, server, game, 30)
    page.keyboard.press("ArrowRight")
    board_matches_state(page, server, game, 31)
    page.click("#forward")
    board_matches_state(page, server, game, 32)
    page.click("#back")
    board_matches_state(page, server, game, 31)
    assert page.url.endswith("?at=31")
    page.keyboard.press("End")
    latest = httpx.get(f"{server}/v1/games/{game}").json()["version"]
    board_matches_state(page, server, game, latest)
    page.keyboard.press("Home")
    board_matches_state(page, server, game, 1)
    page.keyboard.press("ArrowDown")
    expect(page.locator("#at")).not_to_have_value("1")
    phase = page.text_content("#headline").split(" · ")[1:3]
    page.keyboard.press("ArrowDown")
    expect(page.locator("#headline")).not_to_contain_text(" · ".join(phase))
    page.fill("#round", "3")
    page.press("#round", "Enter")
    expect(page.locator("#headline")).to_have_text(re.compile(r"^event \d+ · (round|turn) 3 · "))
    first_of_round = shown_event(page)
    board_matches_state(page, server, game, first_of_round)
    previous = httpx.get(f"{server}/v1/games/{game}/view", params={"at": first_of_round - 1}).json()["headline"]
    assert previous.split(" · ")[0].endswith(" 2"), "the event before the one shown is still in round 2"
    page.click("#event-list li[data-event='60']")
    board_matches_state(page, server, game, 60)
    assert page.locator("#table li").first.text_content().startswith("climate: ")
    view = httpx.get(f"{server}/v1/games/{game}/view", params={"at": 60}).json()
    shown = {
        li.get_attribute("data-terrain"): li.get_attribute("data-zone")
        for li in page.locator("#legend li[data-terrain]").all()
    }
    zones = {
        key["tags"]["terrain"]: key["tags"]["zone"] for key in view["layout"]["legend"] if "terrain" in key["tags"]
    }
    assert shown == zones and len(zones) > 1, "each terrain is shown in the zone the climate puts it in"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"viewer-{path.stem}.png"), full_page=True)


def test_a_link_keeps_its_event_and_an_explanation_and_a_what_if_open_beside_the_board(page: Any, server: str) -> None:
    game = imported(server, EVO1_GAME)["game_id"]
    events = httpx.get(f"{server}/v1/games/{game}/events", params={"limit": 1000}).json()["events"]
    attack = next(e["number"] for e in events if e["text"] == "cat attack D5 C5")
    open_viewer(page, server, game, at=attack + 1)
    assert shown_event(page) == attack + 1
    page.click("#explain")
    page.wait_for_selector("#explanation strong")
    assert page.text_content("#explanation strong") == "combat"
    assert "the attacker wins on 1-4" in page.text_content("#explanation")
    page.fill("#replacement", "roll 6")
    page.click("#what-if button")
    page.wait_for_selector("#branch-standings")
    assert page.text_content("#branch-standings").startswith("branch: ")


def test_live_mode_shows_an_append_as_it_is_recorded(page: Any, server: str) -> None:
    created = httpx.post(
        f"{server}/v1/games", json={"kit": "standin-e2-3p", "players": [{"name": n} for n in ("ann", "ben", "cat")]}
    ).json()
    game, recorder = created["game_id"], {"Authorization": f"Bearer {created['recorder_token']}"}
    open_viewer(page, server, game)
    page.check("#live")
    page.wait_for_timeout(300)
    answer = httpx.post(f"{server}/v1/games/{game}/actions", json={"actions": ["order ann ben cat"]}, headers=recorder)
    assert answer.status_code == 200, answer.text
    page.wait_for_selector("#event-list li[data-event='2']")
    assert page.text_content("#event-list li[data-event='2']").endswith("order ann ben cat")
    expect(page.locator("#at")).to_have_value("3")


def pixel_colours(png: bytes) -> set[bytes]:
    """The distinct colours of a screenshot's pixels: an 8-bit RGB or RGBA PNG, as the browser takes them."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    position, header, data = 8, b"", b""
    while position < len(png):
        length, kind = int.from_bytes(png[position : position + 4], "big"), png[position + 4 : position + 8]
        body = png[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            data += body
        position += 12 + length
    width, height = int.from_bytes(header[:4], "big"), int.from_bytes(header[4:8], "big")
    assert header[8] == 8 and header[9] in (2, 6) and header[12] == 0, "an 8-bit RGB(A) picture, not interlaced"
    size = 3 if header[9] == 2 else 4
    stride, raw = width * size, zlib.decompress(data)
    above, colours = bytearray(stride), set[bytes]()
    for row in range(height):
        start = row * (stride + 1)
        method, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left, up = line[i - size] if i >= size else 0, above[i]
            corner = above[i - size] if i >= size else 0
            line[i] = (line[i] + unfiltered(method, left, up, corner)) & 255
        colours.update(bytes(line[i : i + size]) for i in range(0, stride, size))
        above = line
    return colours


def unfiltered(method: int, left: int, up: int, corner: int) -> int:
    """What PNG filter `method` added to a byte, from its neighbours once they are unfiltered."""
    if method == 0:
        return 0
    if method == 1:
        return left
    if method == 2:
        return up
    if method == 3:
        return (left + up) // 2
    guess = left + up - corner
    return min((abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner))[2]


def test_every_control_of_the_viewer_draws_and_none_needs_a_glyph_the_fonts_lack(page: Any, server: str) -> None:
    game = imported(server, EVO2_GAME)["game_id"]
    open_viewer(page, server, game, at=30)
    for control in CONTROLS:
        assert len(pixel_colours(page.locator(control).screenshot())) > 1, f"{control} draws as a blank box"
    icons = [page.locator(f"{button} svg").screenshot() for button in STEP_BUTTONS]
    for button, icon in zip(STEP_BUTTONS, icons, strict=True):
        assert len(pixel_colours(icon)) > 1, f"{button} draws no icon"
        assert page.get_attribute(button, "aria-label") and page.get_attribute(button, "title"), button
    assert len(set(icons)) == len(STEP_BUTTONS), "each step button draws an icon of its own"
    for text in [*page.locator("button").all_text_contents(), page.inner_text("body")]:
        assert not MISSING_GLYPHS.search(text), f"a glyph the fonts lack: {text!r}"


def test_the_round_field_is_a_field_that_jumps_to_the_round_typed(page: Any, server: str) -> None:
    game = imported(server, EVO2_GAME)["game_id"]
    rounds = httpx.get(f"{server}/v1/games/{game}").json()["round"]
    open_viewer(page, server, game, at=1)
    field = page.get_by_label("jump to round")
    assert field.get_attribute("id") == "round" and field.is_editable()
    assert field.get_attribute("placeholder") == f"1-{rounds}"
    assert page.text_content("#rounds") == f"of {rounds}", "the 'of N' beside the field counts the rounds"
    latest = httpx.get(f"{server}/v1/games/{game}").json()["version"]
    assert page.text_content("#of") == f"of {latest}", "the 'of N' beside the event counts the events"
    border = field.evaluate("f => [getComputedStyle(f).borderTopStyle, getComputedStyle(f).borderTopWidth]")
    assert border[0] != "none" and border[1] != "0px", "the field is drawn as one"
    field.click()
    page.keyboard.type("4")
    page.keyboard.press("Enter")
    expect(page.locator("#headline")).to_have_text(re.compile(r"^event \d+ · round 4 · "))
    field.fill("6")
    field.press("Tab")  # a change jumps too
    expect(page.locator("#headline")).to_have_text(re.compile(r"^event \d+ · round 6 · "))
    page.click("#first")
    expect(page.locator("#at")).to_have_value("1")
    expect(field).to_have_value("")  # a round no longer shown is not left in the field


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["desktop", "phone"])
def test_the_event_list_scrolls_in_its_panel_with_the_header_in_view(
    page: Any, server: str, viewport: dict[str, int]
) -> None:
    page.set_viewport_size(viewport)
    height = viewport["height"]
    game = imported(server, EVO2_GAME)["game_id"]
    open_viewer(page, server, game, at=1)
    expect(page.locator("#audit")).not_to_have_text("audit…")
    head = ("body > header", "#headline", ".controls")
    boxes = {part: page.locator(part).bounding_box() for part in head}
    assert all(box["y"] >= 0 and box["y"] + box["height"] <= height for box in boxes.values())

    def header_unmoved() -> None:
        assert {part: page.locator(part).bounding_box() for part in head} == boxes, "the header stays in view"
        assert page.evaluate("document.scrollingElement.scrollTop") == 0, "the page itself does not scroll"

    page.locator("#events").scroll_into_view_if_needed()  # at a phone's width, the list is below the board
    header_unmoved()
    latest = httpx.get(f"{server}/v1/games/{game}").json()["version"]
    page.keyboard.press("End")
    expect(page.locator(f"#event-list li.current[data-event='{latest}']")).to_be_in_viewport()
    listed = page.locator("#events").evaluate("panel => panel.scrollTop")
    assert listed > 0, "the list scrolled in its own panel to the latest event"
    header_unmoved()
    panel = page.locator("#events").bounding_box()
    page.mouse.move(panel["x"] + panel["width"] / 2, min(panel["y"] + panel["height"], height) - 20)
    page.mouse.wheel(0, -600)
    page.wait_for_timeout(300)
    assert page.locator("#events").evaluate("panel => panel.scrollTop") < listed, "the wheel scrolls the list"
    header_unmoved()
    # The board's column (the one column, at a phone's width), not the list.
    beside = 5 if viewport == PHONE else page.locator("#board").bounding_box()["x"] + 5
    page.mouse.move(beside, height - 20)
    page.mouse.wheel(0, 5000)
    page.wait_for_timeout(300)
    header_unmoved()
    for badge in ("audit…", "audit: rules-broken"):  # the badge before its verdict came, and its longest verdict
        page.locator("#audit").evaluate(f"badge => {{ badge.textContent = {badge!r}; }}")
        header_unmoved()


@pytest.mark.parametrize(
    ("path", "ruleset"),
    [(EVO1_GAME, "evo1"), (TRAITS_GAME, "traits"), (EVO2_GAME, "evo2")],
    ids=["evo1", "traits", "evo2"],
)
def test_the_what_if_suggests_an_action_of_the_games_own_ruleset(
    page: Any, server: str, path: Path, ruleset: str
) -> None:
    game = imported(server, path)["game_id"]
    events = httpx.get(f"{server}/v1/games/{game}/events", params={"limit": 1000}).json()["events"]
    # A public action that a consequence follows, in notation evo2 does not read (unless the game is evo2's).
    action = next(
        e
        for e, then in itertools.pairwise(events[10:])
        if e["fields"].get("notation")
        and not e["fields"]["visible_only_to"]
        and then["fields"].get("cause") == e["number"]
        and (ruleset == "evo2" or not parses(get_ruleset("evo2"), e["fields"]["notation"]))
    )
    for shown in (action["number"], action["number"] + 1):  # the action, then the consequence that follows it
        open_viewer(page, server, game, at=shown)
        placeholder = page.get_attribute("#replacement", "placeholder")
        assert placeholder == f"{action['fields']['notation']} (empty: dropped)", shown
    suggestion = action["fields"]["notation"]
    assert parses(get_ruleset(ruleset), suggestion)
    assert ruleset == "evo2" or not parses(get_ruleset("evo2"), suggestion), "no evo2 action in another's game"
    open_viewer(page, server, game, at=action["number"])
    page.fill("#replacement", suggestion)
    page.click("#what-if button")
    page.wait_for_selector("#branch-standings")


def test_a_game_with_no_action_yet_suggests_the_first_legal_one(page: Any, server: str) -> None:
    players = [{"name": n} for n in ("ann", "ben", "cat")]
    game = httpx.post(f"{server}/v1/games", json={"kit": "standin-e1-3p", "players": players}).json()["game_id"]
    legal = httpx.get(f"{server}/v1/games/{game}/legal").json()["actions"]
    open_viewer(page, server, game)
    expect(page.locator("#replacement")).to_have_attribute("placeholder", f"{legal[0]} (empty: dropped)")


def parses(rules: Any, action: str) -> bool:
    try:
        rules.parse_action(action)
    except NotationError:
        return False
    return True


def test_the_games_page_lists_and_filters_the_games(page: Any, server: str) -> None:
    imported(server, EVO2_GAME)
    evo1 = imported(server, EVO1_GAME)["game_id"]
    page.goto(f"{server}/")
    page.wait_for_selector("#games tr")
    assert page.locator("#games tr").count() == 2
    page.select_option("#ruleset", "evo1")
    page.click("#filters button")
    expect(page.locator("#games tr")).to_have_count(1)
    assert page.get_attribute("#games tr", "data-game") == evo1
    assert "1 cat 44/10" in page.text_content("#games tr")


def test_swagger_ui_opens_from_the_package(page: Any, server: str) -> None:
    page.goto(f"{server}/docs")
    page.wait_for_selector(".swagger-ui .info")
    assert "evo-ledger" in page.text_content(".swagger-ui .info")
    back = page.locator("header a[href='/']")
    expect(back).to_be_visible()
    back.click()
    page.wait_for_url(f"{server}/")
    expect(page.locator("#filters")).to_be_visible()


def test_no_served_file_refers_to_another_host(server: str) -> None:
    """Every page and asset, read as served: nothing loaded from an address with a host of its own."""
    loads = re.compile(
        r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import\s+["']?(?:https?:)?//"""
    )
    with resources.as_file(resources.files("api") / "static") as static:
        paths = ["/", "/games/any", "/docs"] + [
            f"/static/{p.relative_to(static)}" for p in static.rglob("*") if p.is_file()
        ]
    for path in paths:
        answer = httpx.get(f"{server}{path}")
        assert answer.status_code == 200, path
        if path.endswith((".png", ".map")):
            continue
        assert not loads.search(answer.text), f"{path} loads from another host"


def test_the_api_reference_draws_under_its_policy(page: Any, server: str) -> None:
    page.goto(f"{server}/docs")
    page.wait_for_selector(".swagger-ui .opblock-summary-path")
    assert page.locator(".swagger-ui .opblock").count() > 10


def test_the_viewer_shows_each_actions_time_at_the_table_and_plays_the_game_back_at_its_pace(
    page: Any, server: str
) -> None:
    created = httpx.post(
        f"{server}/v1/games", json={"kit": "standin-e2-3p", "players": [{"name": n} for n in ("ann", "ben", "cat")]}
    ).json()
    recorder = {"Authorization": f"Bearer {created['recorder_token']}"}
    seconds = [0, 10, 20, 30, 60, 75, 80]  # ann's bid takes 30 s, ben's 15 s, cat's 5 s
    for action, second in zip(ROUND_ONE_AUCTION, seconds, strict=True):
        body = {"actions": [action], "entered_at": f"2026-05-01T20:{second // 60:02}:{second % 60:02}+00:00"}
        assert httpx.post(f"{server}/v1/games/{created['game_id']}/actions", json=body, headers=recorder).is_success
    open_viewer(page, server, created["game_id"], at=1)
    assert page.locator("#event-list time").count() == len(ROUND_ONE_AUCTION)
    expect(page.locator("#time-at-table li[data-player='ann']")).to_have_text("ann: 30 s in all, 30 s an action")
    expect(page.locator("#time-at-table li[data-player='cat']")).to_have_text("cat: 5 s in all, 5 s an action")
    page.select_option("#speed", "64")
    page.click("#playback")
    latest = httpx.get(f"{server}/v1/games/{created['game_id']}").json()["version"]
    expect(page.locator("#at")).to_have_value(str(latest), timeout=15_000)
    expect(page.locator("#playback")).to_have_text("play at the table's pace")
