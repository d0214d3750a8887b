"""The pages in a real browser: Debian's Chromium driven by Playwright against `evo-ledger serve`'s app on
localhost. The replay viewer steps through an evo2 and an evo1 game by keys and buttons, its board drawn from the
kit and its occupants those of `/state` at each event; links keep the event; live mode shows an append as it is
recorded; explanations and what-ifs open beside the board; a held card shows only with a token that may see it;
and no page or asset reaches another host. Screenshots of the viewer are kept in `test-artifacts/`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS
from tests.support import ROOT

EVO2_GAME = ROOT / "replays" / "hand-3p-first-game.evo"
EVO1_GAME = ROOT / "replays" / "evo1-hand-3p.evo"


def imported(server: str, path: Path) -> dict[str, Any]:
    answer = httpx.post(
        f"{server}/v1/games/import", content=path.read_text(), headers={"Content-Type": "text/plain"}, timeout=30
    )
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def open_viewer(page: Any, server: str, game: str, at: int | None = None) -> None:
    page.goto(f"{server}/games/{game}" + (f"?at={at}" if at else ""))
    page.wait_for_selector("body[data-ready=true]")


def shown_event(page: Any) -> int:
    return int(page.input_value("#at"))


def board_matches_state(page: Any, server: str, game: str, event: int) -> None:
    """The hexes are the kit's spaces, and each dinosaur drawn stands where `/state` says, at `event`."""
    expect(page.locator("#at")).to_have_value(str(event))
    view = httpx.get(f"{server}/v1/games/{game}/view", params={"at": event}).json()
    state = httpx.get(f"{server}/v1/games/{game}/state", params={"at": event}).json()
    assert page.locator("polygon.space").count() == len(view["layout"]["spaces"])
    drawn = {d.get_attribute("data-space"): d.get_attribute("data-occupant") for d in page.locator("circle.dino").all()}
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
        for li in page.locator("#zones li[data-terrain]").all()
    }
    assert shown == view["layout"]["zones"], "each terrain is shown in the zone the climate puts it in"
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


def test_a_held_card_shows_only_with_a_token_that_may_see_it(page: Any, server: str) -> None:
    players = [{"name": n} for n in ("ann", "ben", "cat")]
    created = httpx.post(f"{server}/v1/games", json={"kit": "standin-e1-3p", "players": players}).json()
    game, recorder = created["game_id"], {"Authorization": f"Bearer {created['recorder_token']}"}
    answer = httpx.post(
        f"{server}/v1/games/{game}/actions", json={"actions": ["ann drew heat_stroke"]}, headers=recorder
    )
    assert answer.status_code == 200, answer.text
    open_viewer(page, server, game)
    assert "heat_stroke" not in page.text_content("#event-list")
    page.fill("#token", created["recorder_token"])
    page.click("#token-form button")
    expect(page.locator("#event-list")).to_contain_text("ann drew heat_stroke")


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


def test_no_served_file_refers_to_another_host(server: str) -> None:
    """Every page and asset, read as served: nothing loaded from an address with a host of its own."""
    loads = re.compile(
        r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import\s+["']?(?:https?:)?//"""
    )
    static = ROOT / "api" / "static"
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
