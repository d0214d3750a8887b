"""Two phones (390x844) record one game, the recorder's and a co-recorder's, and both tap `record` at once: one
entry is stored, and the other phone says what the other stored and that its own was not, keeping it to be sent
again on the game as it now stands, or dropped. Each race is made to happen in the order the test names: one phone's
append is held at the server until the other's is stored."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.helpers.holds import Hold, appends_by, choices_after_no_words_by
from tests.helpers.phone import PHONE, logged, open_recording, settled, tap_words
from tests.helpers.servers import running_server

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

TALL_PHONE = {**PHONE, "viewport": {"width": 390, "height": 844}}
ROUND_BEGUN = ("order ann ben cat", "climate cw")
RECORDER, CO_RECORDER = "recorder", "co-recorder"


@dataclass(frozen=True)
class Table:
    """A game on a server that holds the requests the test picks: each device's token, by who holds it."""

    server: str
    hold: Hold
    game: str
    tokens: dict[str, str]

    def record(self, *actions: str) -> None:
        headers = {"Authorization": f"Bearer {self.tokens[RECORDER]}"}
        answer = httpx.post(f"{self.server}/v1/games/{self.game}/actions", json={"actions": actions}, headers=headers)
        assert answer.status_code == 200, answer.text

    def logged(self) -> list[str]:
        return logged(self.server, self.game, self.tokens[RECORDER])


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    hold = Hold()
    with running_server(str(tmp_path / "races.sqlite"), adapted=hold.install) as server:
        players = [{"name": name} for name in ("ann", "ben", "cat")]
        created = httpx.post(f"{server}/v1/games", json={"kit": "standin-e2-3p", "players": players}).json()
        game, token = created["game_id"], created["recorder_token"]
        added = httpx.post(
            f"{server}/v1/games/{game}/co-recorders",
            json={"name": "ben's phone"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert added.status_code == 201, added.text
        yield Table(server, hold, game, {RECORDER: token, CO_RECORDER: added.json()["token"]})


@contextmanager
def phones(browser: Any, table: Table) -> Iterator[dict[str, Any]]:
    """The recording page open on each device's phone, by who holds it."""
    contexts = {who: browser.new_context(**TALL_PHONE) for who in table.tokens}
    try:
        yield {who: open_recording(contexts[who], table.server, table.game, table.tokens[who]) for who in contexts}
    finally:
        for context in contexts.values():
            context.close()


def race(table: Table, pages: dict[str, Any], entries: dict[str, str], held: str) -> str:
    """Each phone's entry tapped in, then `record` on both: the `held` phone's append is held at the server until
    the other's is stored. Who stored first."""
    for who, action in entries.items():
        tap_words(pages[who], action)
    first = next(who for who in pages if who != held)
    with table.hold.holding(appends_by(table.tokens[held])):
        pages[held].locator("#record").tap()
        table.hold.wait_held()
        pages[first].locator("#record").tap()
        expect(pages[first].locator("#message")).to_have_text(f"recorded: {entries[first]}")
    return first


def shows_not_recorded(page: Any, mine: str, theirs: str) -> None:
    """The phone that lost the race says what the other stored and that its own entry was not, and keeps it."""
    expect(page.locator("#message")).to_contain_text(f"not recorded: {mine}: another device recorded first: {theirs}")
    expect(page.locator("#stopped-text")).to_contain_text(f"another device recorded meanwhile: {theirs}")
    expect(page.locator("#stopped-text")).to_contain_text(f"Waiting here: {mine}, not recorded")
    expect(page.locator("#stopped")).to_be_in_viewport()
    for button in ("#keep-entry", "#drop-entry"):
        expect(page.locator(button)).to_be_visible()
    expect(page.locator("#words .word:not(.forced)")).to_have_count(0)  # the words entered are the slot's now


@pytest.mark.parametrize("held", [RECORDER, CO_RECORDER])
def test_race_the_entry_stored_second_is_kept_not_recorded_and_stored_once_kept(
    browser: Any, table: Table, held: str
) -> None:
    """[E2-06] the lab's genes are drawn into its columns one after the other: the entry kept is still legal."""
    table.record(*ROUND_BEGUN)
    entries = {RECORDER: "draw legs", CO_RECORDER: "draw eggs"}
    with phones(browser, table) as pages:
        first = race(table, pages, entries, held)
        shows_not_recorded(pages[held], entries[held], entries[first])
        assert table.logged() == [*ROUND_BEGUN, entries[first]], "the held entry was not stored"
        pages[held].locator("#keep-entry").tap()
        expect(pages[held].locator("#message")).to_have_text(f"recorded: {entries[held]}")
        expect(pages[held].locator("#queue")).to_be_hidden()
        assert table.logged() == [*ROUND_BEGUN, entries[first], entries[held]]


def test_race_the_entry_kept_on_the_game_as_it_now_stands_is_refused_with_its_ruling_then_dropped(
    browser: Any, table: Table
) -> None:
    """[E2-01] the order is placed once, before the round: the order the other phone stored stands."""
    entries = {RECORDER: "order ann ben cat", CO_RECORDER: "order ben ann cat"}
    with phones(browser, table) as pages:
        race(table, pages, entries, held=RECORDER)
        loser = pages[RECORDER]
        shows_not_recorded(loser, entries[RECORDER], entries[CO_RECORDER])
        loser.locator("#keep-entry").tap()
        expect(loser.locator("#stopped-text")).to_contain_text("refused [E2-01]: order ann ben cat")
        expect(loser.locator("#keep-entry")).to_be_hidden()
        loser.locator("#drop-entry").tap()
        expect(loser.locator("#queue")).to_be_hidden()
        assert table.logged() == ["order ben ann cat"]


def test_race_words_another_phone_s_entry_leads_nowhere_are_taken_back_saying_so_never_sent_empty(
    browser: Any, table: Table
) -> None:
    """While the page asks what may begin an action in their place, `record` sends nothing: it is off, with no
    words left to send."""
    with phones(browser, table) as pages:
        page = pages[CO_RECORDER]
        tap_words(page, "order ben ann cat")
        with table.hold.holding(choices_after_no_words_by(table.tokens[CO_RECORDER])):
            table.record("order ann ben cat")
            table.hold.wait_held()
            recorded = "order ann ben cat; Initiative for round 1: ann, ben and cat"
            taken = 'No legal action begins "order ben ann cat" now: its words are taken back.'
            told = f"another device recorded: {recorded}. {taken}"
            expect(page.locator("#message")).to_have_text(told)
            expect(page.locator("#words .word")).to_have_count(0)
            expect(page.locator("#record")).to_be_disabled()
        settled(page)
        expect(page.locator("#message")).to_have_text(told)
        assert table.logged() == ["order ann ben cat"]
