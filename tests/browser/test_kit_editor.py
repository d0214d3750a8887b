"""The kit editor (`/kits/new`) on a phone's 390x844 screen: an `evo2` island drawn by taps over a photo of the board
laid under the grid, refused while it is two islands and saved once mended; a game started on it, and a move
recorded by taps on a space it drew.

Slow: drives Chromium, and the kit editor's checks run in Python in the browser, which starts in seconds."""

from __future__ import annotations

import re
import struct
import time
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import pytest
from playwright.sync_api import expect

from evo_ledger.app.selfplay import self_play_of
from evo_ledger.rules.base import OptionValue
from evo_ledger.rules.kits import parse_kit
from evo_ledger.rules.registry import get_ruleset
from tests.helpers.offline import RULES_READY, RULES_START_MS
from tests.helpers.phone import fits_the_width, settled, tap_action

pytestmark = pytest.mark.slow(reason="drives Chromium; the kit editor's rules start in Python in the browser")


def small_png(path: Path) -> Path:
    """A 4x3 PNG of one colour, written to `path`."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80\xa0\x60" * 4 for _ in range(3))
    header = struct.pack(">IIBBBBB", 4, 3, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
    )
    return path


def tap_cell(page: Any, q: int, r: int, times: int = 1) -> None:
    for _ in range(times):
        page.locator(f'#grid polygon[data-q="{q}"][data-r="{r}"]').tap()


def checked(page: Any) -> None:
    """The page once the rules have answered for the kit as it now stands."""
    page.wait_for_function("() => !document.getElementById('save-why').textContent.includes('until the rules')")


def moves_up_to_a_move(document: dict[str, Any], players: tuple[str, ...]) -> tuple[list[str], str]:
    """The actions a seeded game on the kit records before its first move, and that move."""
    rules = get_ruleset("evo2")
    bots = self_play_of(rules, len(players), "random")
    chosen: dict[str, OptionValue] = {}
    before: list[str] = []
    for action, _ in bots.play(parse_kit(document), players, 3, "random", chosen, None):
        text = rules.format_action(action)
        if " move " in text:
            return before, text
        before.append(text)
    raise AssertionError("the seeded game made no move")


def test_kit_editor_draws_an_island_over_a_photo_saves_it_and_a_move_is_recorded_on_it(
    phone: Any, server: str, tmp_path: Path
) -> None:
    page = phone.new_page()
    page.goto(f"{server}/kits/new")
    expect(page.locator(RULES_READY)).to_be_visible(timeout=RULES_START_MS)
    page.locator("#players").fill("2")
    page.locator("#players").dispatch_event("change")
    expect(page.locator("#seat option")).to_have_count(2)
    page.get_by_label("name").fill("our-island")

    page.locator("#photo-tools summary").tap()
    page.get_by_label("photo", exact=True).set_input_files(str(small_png(tmp_path / "board.png")))
    expect(page.locator("#grid image#photo-image")).to_have_count(1)
    page.get_by_label("zoom").fill("1.5")
    page.get_by_label("rotation").fill("30")
    expect(page.locator("#photo-image")).to_have_attribute("transform", re.compile(r"rotate\(30\) scale\(1\.5\)"))
    assert page.locator("#photo-image").get_attribute("href").startswith("data:image/png")

    tap_cell(page, 0, 0)
    tap_cell(page, 0, 1, times=2)
    tap_cell(page, 2, -1)
    checked(page)
    refusal = page.locator('.problem[data-for="grid"]')
    expect(refusal).to_have_attribute("data-field", "islands")
    expect(refusal).to_contain_text("2 island(s)")
    expect(page.locator("#save")).to_be_disabled()
    expect(page.locator("#save-why")).to_contain_text("cannot be saved")

    tap_cell(page, 1, -1)
    checked(page)
    expect(refusal).to_be_empty()
    expect(page.locator('#grid polygon[data-q="0"][data-r="1"]')).to_have_attribute("data-space", "A2")
    expect(page.locator('#grid polygon[data-q="0"][data-r="1"]')).to_have_attribute("data-terrain", "green")
    expect(page.locator('#grid polygon[data-q="2"][data-r="-1"]')).to_have_attribute("data-space", "C1")

    page.get_by_label("start marks").check()
    tap_cell(page, 0, 0)
    page.locator("#seat").select_option("2")
    tap_cell(page, 2, -1)
    checked(page)
    expect(page.locator('#grid polygon[data-space="A1"]')).to_have_attribute("data-mark", "1")
    expect(page.locator('#grid polygon[data-space="C1"]')).to_have_attribute("data-mark", "2")
    fits_the_width(page, "#grid", "#save", "#photo-tools")

    expect(page.locator("#save")).to_be_enabled()
    page.locator("#save").tap()
    expect(page.locator("#saved-as")).to_contain_text("saved as sha256:")
    kit_hash = page.evaluate("() => document.body.dataset.saved")
    document = httpx.get(f"{server}/v1/kits/{kit_hash}").json()
    assert [space["id"] for space in document["spaces"]] == ["A1", "A2", "C1", "B1"]
    assert document["start_marks"] == {"1": ["A1"], "2": ["C1"]}

    record_a_move_on_it(page, server, document)


def record_a_move_on_it(page: Any, server: str, document: dict[str, Any]) -> None:
    """A game started on the kit saved, from the page that saved it; the actions of a seeded game before its first
    move recorded, and the move entered by taps on the recording page."""
    page.get_by_label("players").last.fill("ann ben")
    fits_the_width(page, "#saved-as", "#new-game")
    opened: list[str] = []
    page.on("framenavigated", lambda frame: opened.append(frame.url))
    page.get_by_role("button", name="start a game on it").tap()
    page.wait_for_url("**/record**")
    address = urlsplit(next(url for url in opened if "#token=" in url))
    game, token = address.path.split("/")[2], unquote(address.fragment.removeprefix("token="))
    page.wait_for_url(f"**/games/{game}/record**")
    settled(page)
    before, move = moves_up_to_a_move(document, ("ann", "ben"))
    if before:
        posted = httpx.post(
            f"{server}/v1/games/{game}/actions", json={"actions": before}, headers={"Authorization": f"Bearer {token}"}
        )
        assert posted.status_code == 200, posted.text
    page.reload()
    settled(page)
    tap_action(page, move)
    _, _, source, target = move.split()
    for _ in range(100):
        events = httpx.get(f"{server}/v1/games/{game}/events", headers={"Authorization": f"Bearer {token}"}).json()
        last = events["events"][-1]
        if source in str(last) and target in str(last):
            break
        time.sleep(0.1)
    assert source in str(last) and target in str(last), last
