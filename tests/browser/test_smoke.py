"""The quick tier's one browser test: Debian's Chromium driven by Playwright against `evo-ledger serve`'s app on
localhost, the replay viewer drawn from a game recorded over HTTP, and a held card shown only with a token that may
see it. The other browser modules are in the whole suite only."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import expect

from tests.helpers.pages import open_viewer


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
