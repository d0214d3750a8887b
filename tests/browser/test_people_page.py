"""The people page in a real browser, at a desktop's size and a phone's: the list the API serves, searched; a
person renamed, merged into another and split back out, the keeper's token asked for once (and again only when the
API refuses the one given as no keeper's); a refusal shown with the API's message, an organiser's change to a person
it does not keep among them. Screenshots are kept in `test-artifacts/`."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.helpers.browser import ARTIFACTS
from tests.helpers.pages import CELLS, caught_up
from tests.helpers.phone import fits_the_width
from tests.helpers.servers import ADMIN

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

NAMES = {"ann-a": "ann", "ann-b": "anne", "ben-1": "ben"}
FIRST_WINS = ["{0} roll 6", "{0} roll 6", "{0} hold"]  # the first seat holds 12: the toy's target


def played(server: str, first: str, second: str) -> str:
    players = [{"name": NAMES[first], "id": first}, {"name": NAMES[second], "id": second}]
    created = httpx.post(f"{server}/v1/games", json={"kit": "toy-2p", "players": players})
    assert created.status_code == 201, created.text
    game: str = created.json()["game_id"]
    recorder = {"Authorization": f"Bearer {created.json()['recorder_token']}"}
    actions = [action.format(NAMES[first]) for action in FIRST_WINS]
    appended = httpx.post(f"{server}/v1/games/{game}/actions", json={"actions": actions}, headers=recorder)
    assert appended.status_code == 200, appended.text
    return game


@pytest.fixture
def seated(server: str) -> str:
    """Three stable ids at three games (ann's two ids never at one table), the read tables caught up."""
    played(server, "ann-a", "ben-1")
    played(server, "ben-1", "ann-b")
    played(server, "ann-b", "ben-1")
    caught_up(server)
    return server


def listed(page: Any) -> list[list[str]]:
    page.wait_for_selector("body[data-ready=true]")
    rows: list[list[str]] = page.eval_on_selector_all("#people tr", CELLS)
    return [row[:3] for row in rows]


def open_change(page: Any, person: str) -> None:
    page.click(f'#people tr[data-person="{person}"] button.change')
    page.wait_for_selector("#editor:not([hidden])")


def test_a_keeper_searches_renames_merges_and_splits_people_giving_the_token_once(page: Any, seated: str) -> None:
    page.goto(f"{seated}/people")
    assert listed(page) == [["ann", "ann-a", "1"], ["anne", "ann-b", "2"], ["ben", "ben-1", "3"]]
    page.fill("#search", "ANN-B")
    page.wait_for_function("() => document.querySelectorAll('#people tr').length === 1")
    assert listed(page) == [["anne", "ann-b", "2"]]
    page.fill("#search", "")
    page.wait_for_function("() => document.querySelectorAll('#people tr').length === 3")

    open_change(page, "ann-b")
    page.fill("#new-name", "Anne Example")
    page.click("#rename-form button")
    page.wait_for_selector("#keeper-form:not([hidden])")
    page.fill("#keeper-token", "not the keeper's")
    page.click("#keeper-form button:not([type])")
    page.wait_for_selector("#keeper-form:not([hidden])")
    assert "not a keeper's" in page.text_content("#keeper-why")
    page.fill("#keeper-token", ADMIN)
    page.click("#keeper-form button:not([type])")
    page.wait_for_selector("#editor[hidden]", state="attached")
    assert listed(page) == [["ann", "ann-a", "1"], ["Anne Example", "ann-b", "2"], ["ben", "ben-1", "3"]]

    open_change(page, "ann-b")
    page.select_option("#merge-into", "ann-a")
    page.click("#merge-form button")
    page.wait_for_selector("#editor[hidden]", state="attached")
    assert page.is_hidden("#keeper-form")
    assert listed(page)[0][:2] == ["ann", "ann-a, ann-b"] and len(listed(page)) == 2
    page.screenshot(path=str(ARTIFACTS / "people-desktop.png"), full_page=True)

    open_change(page, "ann-a")
    page.fill("#new-name", "   ")
    page.click("#rename-form button")
    page.wait_for_selector("#problem:not([hidden])")
    assert page.text_content("#problem").startswith("name: from 1 to 80 characters")
    page.select_option("#split-id", "ann-b")
    page.click("#split-form button")
    page.wait_for_selector("#editor[hidden]", state="attached")
    assert page.is_hidden("#keeper-form") and page.is_hidden("#problem")
    assert [row[:2] for row in listed(page)] == [["ann", "ann-a"], ["Anne Example", "ann-b"], ["ben", "ben-1"]]
    served = httpx.get(f"{seated}/v1/people").json()["people"]
    assert [person["name"] for person in served] == ["ann", "Anne Example", "ben"]


def test_the_people_page_fits_a_phone_with_its_changes_open(phone: Any, seated: str) -> None:
    on_phone = phone.new_page()
    on_phone.goto(f"{seated}/people")
    assert len(listed(on_phone)) == 3
    fits_the_width(on_phone, "#people tr", "#people button.change", "#search", "h1")
    open_change(on_phone, "ann-b")
    assert on_phone.is_hidden("#split-form"), "a person holding its own stable id alone has none to split out"
    fits_the_width(on_phone, "#editor", "#new-name", "#merge-into", "#rename-form button", "#merge-form button")
    on_phone.screenshot(path=str(ARTIFACTS / "people-phone.png"), full_page=True)


def test_an_organiser_refused_a_person_it_does_not_keep_is_told_why_and_keeps_its_token(page: Any, server: str) -> None:
    kept = played(server, "ann-a", "ben-1")
    played(server, "ben-1", "ann-b")
    caught_up(server)
    admin = {"Authorization": f"Bearer {ADMIN}"}
    opened = httpx.post(f"{server}/v1/competitions", json={"kind": "night", "name": "Tuesday"}, headers=admin).json()
    added = httpx.post(
        f"{server}/v1/competitions/{opened['competition_id']}/games",
        json={"game_id": kept},
        headers={"Authorization": f"Bearer {opened['organiser_token']}"},
    )
    assert added.status_code == 201, added.text
    page.goto(f"{server}/people")
    open_change(page, "ann-b")
    page.fill("#new-name", "Anne Example")
    page.click("#rename-form button")
    page.wait_for_selector("#keeper-form:not([hidden])")
    page.fill("#keeper-token", opened["organiser_token"])
    page.click("#keeper-form button:not([type])")
    page.wait_for_selector("#problem:not([hidden])")
    assert "'ann-b' sat at no game of your competition" in page.text_content("#problem")
    assert page.is_hidden("#keeper-form")

    page.click("#close-editor")
    open_change(page, "ann-a")
    page.fill("#new-name", "Ann Example")
    page.click("#rename-form button")
    page.wait_for_selector("#editor[hidden]", state="attached")
    assert page.is_hidden("#keeper-form")
    assert [row[:2] for row in listed(page)] == [["Ann Example", "ann-a"], ["anne", "ann-b"], ["ben", "ben-1"]]
