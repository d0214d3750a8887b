"""A competition's page and the dashboard's filters in a real browser, at a desktop's size and a phone's: the page
shows the standings the API serves (shared places and shared points included) and the games by round and table, a
withdrawn game marked, fitting a phone's width; the dashboard, filtered by a competition or a season, draws the
statistics of those games alone, a season label given with extra spaces included. Screenshots are kept in
`test-artifacts/`."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.helpers.browser import ARTIFACTS
from tests.helpers.pages import CELLS, caught_up, chart_data
from tests.helpers.phone import fits_the_width
from tests.helpers.servers import ADMIN

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

TOY_3P = {"format": 1, "ruleset": "toy", "name": "toy-3p", "stand_in": False, "players": 3, "target": 12}
THREE = [{"name": "ann"}, {"name": "ben"}, {"name": "cat"}]
ANN_WINS = ["ann roll 6", "ann roll 6", "ann hold"]  # ann 12; ben and cat 0, sharing second place
CAT_WINS = ["ann roll 1", "ben roll 2", "ben hold", "cat roll 6", "cat roll 6", "cat hold"]  # cat 12, ben 2, ann 0
BEN_WINS = ["ann roll 1", "ben roll 6", "ben roll 6", "ben hold"]  # ben 12; ann and cat 0


def opened(server: str, name: str, season: str) -> tuple[str, dict[str, str]]:
    body = {"kind": "tournament", "name": name, "season": season}
    answer = httpx.post(f"{server}/v1/competitions", json=body, headers={"Authorization": f"Bearer {ADMIN}"})
    assert answer.status_code == 201, answer.text
    return answer.json()["competition_id"], {"Authorization": f"Bearer {answer.json()['organiser_token']}"}


def played(
    server: str,
    kit: str,
    actions: list[str],
    entry: dict[str, Any] | None,
    organiser: dict[str, str],
    withdrawn: bool = False,
) -> str:
    """A three-player game entered in a competition (where `entry` names one) and played to its end: withdrawn
    after, where asked."""
    body = {"kit": kit, "players": THREE, "competition": entry}
    created = httpx.post(f"{server}/v1/games", json=body, headers=organiser)
    assert created.status_code == 201, created.text
    recorder = {"Authorization": f"Bearer {created.json()['recorder_token']}"}
    game: str = created.json()["game_id"]
    appended = httpx.post(f"{server}/v1/games/{game}/actions", json={"actions": actions}, headers=recorder)
    assert appended.status_code == 200, appended.text
    if withdrawn:
        answer = httpx.post(f"{server}/v1/games/{game}/withdraw", json={"reason": "a test game"}, headers=recorder)
        assert answer.status_code == 200, answer.text
    return game


@pytest.fixture
def cup(server: str) -> tuple[str, list[str]]:
    """A tournament of two rounds (two games in round 1 at tables A and B, one in round 2) and another
    competition's game, the read tables caught up: the cup's id and its games in the order they were added."""
    stored = httpx.post(f"{server}/v1/kits", json=TOY_3P)
    assert stored.status_code == 201, stored.text
    kit = stored.json()["kit"]
    competition, organiser = opened(server, "Spring cup", "2026 spring")
    games = [
        played(server, kit, ANN_WINS, {"id": competition, "round": 1, "table": "A"}, organiser),
        played(server, kit, CAT_WINS, {"id": competition, "round": 1, "table": "B"}, organiser),
        played(server, kit, CAT_WINS, {"id": competition, "round": 2}, organiser),
    ]
    other, other_organiser = opened(server, "Friday", "2026 winter")
    played(server, kit, BEN_WINS, {"id": other}, other_organiser)
    caught_up(server)
    return competition, games


# Each round's name, and its games: each game's id, its table and its link.
ROUNDS = """rounds => rounds.map((round) => [round.dataset.round, [...round.querySelectorAll("li")].map((game) =>
    [game.dataset.game, game.querySelector(".table").textContent, game.querySelector("a").getAttribute("href")])])"""


def shows_the_competition(page: Any, server: str, competition: str, games: list[str]) -> None:
    page.goto(f"{server}/competitions/{competition}")
    page.wait_for_selector("body[data-ready=true]")
    assert page.text_content("#name") == "Spring cup"
    assert page.text_content("#about") == "tournament · 2026 spring · places give 3, 2, 1, 0 points"
    served = httpx.get(f"{server}/v1/competitions/{competition}").json()["standings"]
    shown = page.eval_on_selector_all("#standings tr", CELLS)
    # cat: 1.5 + 3 + 3 points; ben: 1.5 + 2 + 2; ann: 3 + 1 + 1.
    assert shown == [
        ["1", "cat", "3", "2", "7.5", "24"],
        ["2", "ben", "3", "0", "5.5", "4"],
        ["3", "ann", "3", "1", "5", "12"],
    ]
    assert shown == [
        [str(row["place"]), row["name"], str(row["games"]), str(row["wins"]), f"{row['points']:g}", str(row["score"])]
        for row in served
    ]
    rounds = page.eval_on_selector_all("#rounds .round-games", ROUNDS)
    assert rounds == [
        ["round 1", [[games[0], "table A", f"/games/{games[0]}"], [games[1], "table B", f"/games/{games[1]}"]]],
        ["round 2", [[games[2], "", f"/games/{games[2]}"]]],
    ]


def test_a_competitions_page_shows_its_standings_and_its_games_by_round_and_table(
    page: Any, phone: Any, server: str, cup: tuple[str, list[str]]
) -> None:
    competition, games = cup
    shows_the_competition(page, server, competition, games)
    page.screenshot(path=str(ARTIFACTS / "competition-desktop.png"), full_page=True)
    on_phone = phone.new_page()
    shows_the_competition(on_phone, server, competition, games)
    fits_the_width(on_phone, "#standings tr", "#rounds li", "#name")
    on_phone.screenshot(path=str(ARTIFACTS / "competition-phone.png"), full_page=True)
    unknown = "00000000-0000-4000-8000-000000000000"
    page.goto(f"{server}/competitions/{unknown}")
    page.wait_for_selector("body[data-ready=true]")
    assert page.is_visible("#problem") and unknown in page.text_content("#problem")


@pytest.mark.parametrize("filtered", ["competition", "season"])
def test_the_dashboard_filtered_by_a_competition_or_a_season_draws_those_games_alone(
    page: Any, phone: Any, server: str, cup: tuple[str, list[str]], filtered: str
) -> None:
    competition, _ = cup
    value = competition if filtered == "competition" else "2026 spring"
    scoped = {"ruleset": "toy", filtered: value}
    profiles = httpx.get(f"{server}/v1/statistics/profiles", params=scoped).json()["rows"]
    assert sorted(row["games"] for row in profiles) == [3, 3, 3]
    every = httpx.get(f"{server}/v1/statistics/profiles", params={"ruleset": "toy"}).json()["rows"]
    assert sorted(row["games"] for row in every) == [4, 4, 4]
    for context_page in (page, phone.new_page()):
        context_page.goto(f"{server}/dashboard?ruleset=toy&{filtered}={value.replace(' ', '+')}")
        context_page.wait_for_selector("body[data-ready=true]")
        assert context_page.input_value(f"#{filtered}") == value
        games, wins = chart_data(context_page, "players-chart")
        assert games["data"] == [row["games"] for row in profiles]
        assert wins["data"] == [row["wins"] for row in profiles]
    fits_the_width(context_page, "#filters select")
    page.select_option(f"#{filtered}", "")
    page.wait_for_function(DRAWN_GAMES, arg=[row["games"] for row in every])
    assert filtered not in page.evaluate("location.search")


# Whether the games-per-player chart draws the games given.
DRAWN_GAMES = """(expected) => {
    const chart = Chart.getChart(document.querySelector("#players-chart canvas"));
    return Boolean(chart) && JSON.stringify(chart.data.datasets[0].data) === JSON.stringify(expected);
}"""


def test_a_season_label_given_with_extra_spaces_filters_the_dashboard_and_a_withdrawn_game_is_marked(
    page: Any, server: str
) -> None:
    stored = httpx.post(f"{server}/v1/kits", json=TOY_3P)
    assert stored.status_code == 201, stored.text
    kit = stored.json()["kit"]
    league, organiser = opened(server, "  Autumn   league ", "2026  autumn ")
    counted = played(server, kit, ANN_WINS, {"id": league}, organiser)
    withdrawn = played(server, kit, CAT_WINS, {"id": league}, organiser, withdrawn=True)
    played(server, kit, BEN_WINS, None, {})  # in no competition: counted in every game's statistics alone
    caught_up(server)
    page.goto(f"{server}/dashboard?ruleset=toy")
    page.wait_for_selector("body[data-ready=true]")
    page.wait_for_function(DRAWN_GAMES, arg=[2, 2, 2])
    options = page.eval_on_selector_all("#season option", "found => found.map((o) => [o.value, o.textContent])")
    assert options == [["", "every season"], ["2026 autumn", "2026 autumn"]]
    page.select_option("#season", "2026 autumn")
    page.wait_for_function(DRAWN_GAMES, arg=[1, 1, 1])
    assert page.is_hidden("#problem")
    assert "season=2026+autumn" in page.evaluate("location.search")
    page.goto(f"{server}/competitions/{league}")
    page.wait_for_selector("body[data-ready=true]")
    assert page.text_content("#name") == "Autumn league"
    marks = page.eval_on_selector_all(
        "#rounds li", "games => games.map((game) => [game.dataset.game, game.querySelector('.withdrawn')?.textContent])"
    )
    assert marks == [[counted, None], [withdrawn, "withdrawn"]]
    assert page.eval_on_selector_all("#standings tr", CELLS)[0][:2] == ["1", "ann"]
