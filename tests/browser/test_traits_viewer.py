"""The trait-card game in the replay viewer, in Debian's Chromium: its table drawn from the layout (each location's
cards and the tokens on them as `/state` has them, stepped by keys and by a millennium); a seat's hand drawn as
cards only for a token that may see it, or for everyone once the game is over [TR-24]; and the perspective
selector, which steps the game as the public or a seat saw it and never offers more than the token may see."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.helpers.pages import imported, open_viewer
from tests.helpers.traits_pages import ACTIONS, TRAITS_GAME, seated_traits_game

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")
SPECIES = ".board-panel[data-species]"  # a species' board


def drawn_locations(page: Any) -> dict[str, dict[str, dict[str, int]]]:
    """Each location drawn: its cards, and the survival tokens on each by species."""
    found: dict[str, dict[str, dict[str, int]]] = {}
    for place in page.locator(".board-panel[data-place]").all():
        cards = {}
        for card in place.locator(".card").all():
            tokens = {
                token.get_attribute("data-owner"): int(token.get_attribute("data-count"))
                for token in card.locator(".token").all()
            }
            cards[card.get_attribute("data-card")] = tokens
        found[place.get_attribute("data-place")] = cards
    return found


def state_locations(server: str, game: str, event: int, headers: dict[str, str] | None = None) -> dict[str, Any]:
    state = httpx.get(f"{server}/v1/games/{game}/state", params={"at": event}, headers=headers or {}).json()["state"]
    return {
        name: {
            card: {s: n for s, n in place["tokens"].get(card, {}).items() if n}
            for card in place["fauna"] + place["flora"]
        }
        for name, place in state["locations"].items()
    }


def table_matches_state(page: Any, server: str, game: str, event: int) -> None:
    expect(page.locator("#at")).to_have_value(str(event))
    expect(page.locator(".board-panels")).to_be_visible()
    assert drawn_locations(page) == state_locations(server, game, event)


def test_a_traits_game_is_stepped_by_keys_and_by_millennium_with_its_table_as_the_state_has_it(
    page: Any, server: str
) -> None:
    game = imported(server, TRAITS_GAME)["game_id"]
    open_viewer(page, server, game, at=40)
    table_matches_state(page, server, game, 40)
    for event in range(41, 46):
        page.keyboard.press("ArrowRight")
        table_matches_state(page, server, game, event)
    assert page.locator(".token[data-state]").count() > 0 and page.locator(SPECIES).count() == 2
    state = httpx.get(f"{server}/v1/games/{game}/state", params={"at": 45}).json()["state"]
    held = {name: species["hand"] for name, species in state["species"].items() if species["hand"]}
    assert held and hands(page) == {
        name: " ".join(t for t in sorted(h) for _ in range(h[t])) for name, h in held.items()
    }
    page.fill("#round", "2")
    page.press("#round", "Enter")
    expect(page.locator("#headline")).to_have_text(re.compile(r"^event \d+ · millennium 2 · "))
    table_matches_state(page, server, game, int(page.input_value("#at")))
    page.set_viewport_size({"width": 360, "height": 640})
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360, f"the table is {width} px wide at a phone's width"


def use_token(page: Any, headers: dict[str, str]) -> None:
    page.fill("#token", headers.get("Authorization", "").removeprefix("Bearer "))
    page.click("#token-form button")
    page.wait_for_selector("body[data-ready=true]")


def read_as(page: Any, perspective: str) -> None:
    page.select_option("#perspective", perspective)
    page.wait_for_selector("body[data-ready=true]")


def hands(page: Any) -> dict[str, str]:
    """The hands drawn as cards, by species."""
    return {
        species.get_attribute("data-species"): species.locator("[data-hand]").get_attribute("data-hand")
        for species in page.locator(SPECIES).all()
        if species.locator("[data-hand]").count()
    }


def seat_hand(server: str, game: str, headers: dict[str, str], species: str) -> str:
    hand = httpx.get(f"{server}/v1/games/{game}/state", headers=headers).json()["state"]["species"][species]["hand"]
    return " ".join(trait for trait in sorted(hand) for _ in range(hand[trait]))


def test_a_hand_is_drawn_only_for_a_token_that_may_see_it_and_the_perspective_steps_the_game_as_a_seat_saw_it_TR_24(
    page: Any, server: str
) -> None:
    game, readers = seated_traits_game(server, ACTIONS.index("ann active lake"))  # both hands are full
    open_viewer(page, server, game)
    expect(page.locator(".board-panels")).to_be_visible()
    assert hands(page) == {}
    assert page.locator("#perspective").is_hidden()
    use_token(page, readers["ann"])
    expect(page.locator(f"{SPECIES}[data-species=circle] [data-hand]")).to_be_visible()
    assert hands(page) == {"circle": seat_hand(server, game, readers["ann"], "circle")}
    options = page.locator("#perspective option").all()
    assert sorted(option.get_attribute("value") for option in options) == ["", "public"]
    read_as(page, "public")
    expect(page.locator(f"{SPECIES} [data-hand]")).to_have_count(0)
    use_token(page, readers["recorder"])
    read_as(page, "")
    expect(page.locator(f"{SPECIES} [data-hand]")).to_have_count(2)
    read_as(page, "ben")
    expect(page.locator(f"{SPECIES}[data-species=square] [data-hand]")).to_be_visible()
    assert hands(page) == {"square": seat_hand(server, game, readers["ben"], "square")}
    page.keyboard.press("Home")
    expect(page.locator("#at")).to_have_value("1")
    assert page.url.endswith("?at=1&as=ben")
    assert hands(page) == {}  # nothing drawn yet at the game's start
