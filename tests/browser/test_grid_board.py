"""A board given as data, in Debian's Chromium: the square-grid toy (`tests/grid_toy`, noughts and crosses) ships no
JavaScript, and the pages draw its board from its layout alone. The viewer draws its squares in their columns and
rows and each mark as a piece, in its player's colour, on the square the state says; on the recording page the
empty squares are offered to a tap, a tap on one enters its name, and the action is recorded [GT-01]; a tap on a
marked square is refused with its ruling [GT-02]."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from evo_ledger.game.notation import parse_game
from tests.helpers.browser import ARTIFACTS
from tests.helpers.pages import open_viewer
from tests.helpers.phone import PHONE, logged, new_game, open_recording, settled
from tests.helpers.tokens import bearer

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

GAME = parse_game("ruleset grid 1\nkit grid-3x3\nplayers ann ben\n")
OPENING = ["ann mark b2", "ben mark a1", "ann mark c3"]
SQUARES = "#board svg.grid.square rect.space"


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(**PHONE)
    yield context
    context.close()


def recorded(server: str, actions: list[str]) -> tuple[str, str]:
    """A new game of the grid toy with `actions` recorded: its id and recorder token."""
    game, token = new_game(server, GAME)
    answer = httpx.post(f"{server}/v1/games/{game}/actions", json={"actions": actions}, headers=bearer(token))
    assert answer.status_code == 200, answer.text
    return game, token


def pieces(page: Any) -> dict[str, str]:
    """Each piece drawn: its square and its owner."""
    return {
        piece.get_attribute("data-space"): piece.get_attribute("data-owner")
        for piece in page.locator("#board circle.piece").all()
    }


def centre(page: Any, square: str) -> tuple[float, float]:
    box = page.locator(f"{SQUARES}[data-space='{square}']").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_the_viewer_draws_the_square_grid_and_its_marks_from_the_layout_alone(page: Any, server: str) -> None:
    game, _ = recorded(server, OPENING)
    open_viewer(page, server, game)
    expect(page.locator(SQUARES)).to_have_count(9)
    state = httpx.get(f"{server}/v1/games/{game}/state").json()
    assert pieces(page) == state["occupants"] == {"b2": "ann", "a1": "ben", "c3": "ann"}
    assert page.locator("#board .piece-label").all_text_contents() == ["X", "O", "X"]
    colours = {
        owner: page.locator(f"circle.piece[data-owner='{owner}']").first.get_attribute("fill")
        for owner in ("ann", "ben")
    }
    assert len(set(colours.values())) == 2, "each player's pieces in a colour of their own"
    (a1_x, a1_y), (b1_x, b1_y), (a2_x, a2_y) = (centre(page, square) for square in ("a1", "b1", "a2"))
    assert a1_x < b1_x and a1_y == b1_y and a2_x == a1_x and a2_y > a1_y, "columns left to right, rows top down"
    assert page.locator("#board .board-panels, #legend li").count() == 0, "a board of spaces alone"
    page.keyboard.press("Home")
    expect(page.locator("#at")).to_have_value("1")
    assert pieces(page) == {}, "the game as it was set up: no mark yet"
    page.keyboard.press("ArrowRight")
    expect(page.locator("#at")).to_have_value("2")
    assert pieces(page) == {"b2": "ann"}
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "viewer-grid.png"), full_page=True)


def test_a_square_tapped_on_the_recording_page_is_entered_and_recorded_GT_01(phone: Any, server: str) -> None:
    game, token = recorded(server, OPENING[:1])
    page = open_recording(phone, server, game, token)
    assert settled(page) == ["ben", "mark"], "the only words possible now, entered for the recorder"
    offered = page.locator("#board .space.offered")
    expect(offered).to_have_count(8)
    assert "b2" not in [square.get_attribute("data-tap") for square in offered.all()], "a marked square is not offered"
    page.locator("#board .space[data-tap='a1']").tap()
    assert settled(page) == ["ben", "mark", "a1"]
    page.locator("#record").tap()
    expect(page.locator("#message")).to_have_text("recorded: ben mark a1")
    assert logged(server, game, token) == ["ann mark b2", "ben mark a1"]
    expect(page.locator("#board circle.piece[data-space='a1'][data-owner='ben']")).to_have_count(1)


def test_a_tap_on_a_marked_square_is_refused_with_its_ruling_and_stores_nothing_GT_02(phone: Any, server: str) -> None:
    game, token = recorded(server, OPENING[:1])
    page = open_recording(phone, server, game, token)
    settled(page)
    page.locator("#board .space[data-tap='b2']").tap()
    settled(page)
    expect(page.locator("#message")).to_contain_text("no legal action begins")
    page.locator("#record").tap()
    settled(page)
    expect(page.locator("#message")).to_have_class("refused")
    expect(page.locator("#message")).to_contain_text(re.compile(r"refused \[GT-02\]: b2 is marked already"))
    assert logged(server, game, token) == ["ann mark b2"], "nothing was stored"
