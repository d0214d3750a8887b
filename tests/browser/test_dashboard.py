"""The dashboard in a real browser: over self-played mixed tables of evo2, evo1 and traits, each chart draws what
its endpoint serves (ratings over time, win rate by seat and by opening place, the seat advantage with skill
accounted for, the ratings' calibration, batch ratings beside the incremental ones, skill against luck, scores,
dice against a fair die with the chi-square verdict, games per ruleset and per player), each CSV link downloads its
table, and a ruleset without dice says so. Screenshots are kept in `test-artifacts/`."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from evo_ledger.app.selfplay import play_game
from tests.helpers.browser import ARTIFACTS
from tests.helpers.pages import caught_up, chart_data, the_rulesets_own_panels_show_its_statistics

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

TABLES = {"evo2": (3, 5), "evo1": (3, 4), "traits": (2, 3)}
BOTS = ["sensible", "random", "random", "sensible", "random"]


def record_mixed_tables(server: str) -> None:
    for ruleset, (players, games) in TABLES.items():
        for seed in range(games):
            seats = BOTS[seed % 2 : seed % 2 + players]
            text = play_game(players, seed, "sensible", ruleset, None, seats).text()
            answer = httpx.post(f"{server}/v1/games/import", content=text, headers={"Content-Type": "text/plain"})
            assert answer.status_code == 201, answer.text


def statistics(server: str, path: str, ruleset: str) -> Any:
    return httpx.get(f"{server}/v1/statistics/{path}", params={"ruleset": ruleset}).json()


def test_the_dashboard_draws_what_the_read_tables_serve(page: Any, server: str) -> None:
    record_mixed_tables(server)
    caught_up(server)
    page.goto(f"{server}/dashboard?ruleset=evo1")
    page.wait_for_selector("body[data-ready=true]")
    assert page.input_value("#ruleset") == "evo1"
    counts = httpx.get(f"{server}/v1/statistics/rulesets").json()["rows"]
    assert [row["games"] for row in counts] == [TABLES[row["ruleset"]][1] for row in counts]
    assert chart_data(page, "games-chart")[0]["data"] == [row["games"] for row in counts]

    profiles = statistics(server, "profiles", "evo1")["rows"]
    lines = {line["label"]: line["data"] for line in chart_data(page, "ratings-chart")}
    assert lines == {
        row["name"]: [
            {"x": game, "y": ordinal} for game, ordinal in zip(row["rated_games"], row["ratings"], strict=True)
        ]
        for row in profiles
    }
    seats = statistics(server, "seats", "evo1")["rows"]
    interval, win_rate = chart_data(page, "seats-chart")
    assert win_rate["data"] == [row["win_rate"] for row in seats]
    assert interval["data"] == [[row["low"], row["high"]] for row in seats]
    places = statistics(server, "first-places", "evo1")["rows"]
    assert chart_data(page, "places-chart")[1]["data"] == [row["win_rate"] for row in places]
    scores = statistics(server, "scores", "evo1")["rows"]
    assert chart_data(page, "scores-chart")[2]["data"] == [row["mean_margin"] for row in scores]

    dice = statistics(server, "dice", "evo1")
    rolled, fair = chart_data(page, "dice-chart")
    assert rolled["data"] == [dice["fit"]["observed"][face] for face in dice["faces"]]
    assert fair["data"] == [dice["fit"]["expected"][face] for face in dice["faces"]]
    note = page.text_content("#dice-chart .note")
    assert note.startswith(f"d6: {dice['fit']['rolls']} rolls") and dice["fit"]["verdict"] in note
    assert all(f"{purpose}: " in note for purpose in dice["fit_by_purpose"])
    assert chart_data(page, "players-chart")[0]["data"] == [row["games"] for row in profiles]
    csv_links_download_their_tables(page, server)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dashboard-evo1.png"), full_page=True)

    page.select_option("#ruleset", "traits")
    expect(page).to_have_url(re.compile(r"\?ruleset=traits$"))
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    assert page.text_content("#dice-chart .note") == "traits rolls no die"
    assert chart_data(page, "dice-chart") is None
    assert page.locator("#dice-chart .csv").is_hidden()
    traits_seats = statistics(server, "seats", "traits")["rows"]
    assert chart_data(page, "seats-chart")[1]["data"] == [row["win_rate"] for row in traits_seats]
    for ruleset in ("traits", "evo2", "evo1"):
        if ruleset != "traits":
            page.select_option("#ruleset", ruleset)
            expect(page).to_have_url(re.compile(rf"\?ruleset={ruleset}$"))
            expect(page.locator("body")).to_have_attribute("data-ready", "true")
        the_rulesets_own_panels_show_its_statistics(page, server, ruleset)
        the_strength_panels_draw_what_is_served(page, server, ruleset)


def the_strength_panels_draw_what_is_served(page: Any, server: str, ruleset: str) -> None:
    """The seat advantage beside the raw win rates, the ratings' calibration, the batch ratings beside the
    incremental ones, and skill against luck, each as its endpoint serves it."""
    advantage = statistics(server, "seat-advantage", ruleset)["rows"]
    interval, chance, raw = chart_data(page, "seat-advantage-chart")
    assert interval["data"] == [[row["win_chance_low"], row["win_chance_high"]] for row in advantage]
    assert chance["data"] == [row["win_chance"] for row in advantage]
    assert raw["data"] == [row["win_rate"] for row in statistics(server, "seats", ruleset)["rows"]]
    effects = page.text_content("#seat-advantage-chart .note")
    assert all(f"{row['players']}p seat {row['at']}: effect" in effects for row in advantage if row["at"] > 1)

    calibration = statistics(server, "calibration", ruleset)
    observed, diagonal = chart_data(page, "calibration-chart")
    assert observed["data"] == [{"x": b["mean_predicted"], "y": b["observed"]} for b in calibration["bins"]]
    assert diagonal["data"] == [{"x": 0, "y": 0}, {"x": 1, "y": 1}]
    note = page.text_content("#calibration-chart .note")
    assert note.startswith(f"{calibration['all']['games']} games: log loss {calibration['all']['log_loss']:.3f}")
    assert f"no skill {calibration['later_half']['baseline_log_loss']:.3f}" in note

    batch = statistics(server, "batch-ratings", ruleset)["rows"]
    batch_ordinals, incremental_ordinals = chart_data(page, "batch-chart")
    assert batch_ordinals["data"] == [row["ordinal"] for row in batch]
    assert incremental_ordinals["data"] == [row["incremental_ordinal"] for row in batch]
    differences = page.text_content("#batch-chart .note")
    assert all(f"{row['name']}: mu {row['mu']:.1f} against {row['incremental_mu']:.1f}" in differences for row in batch)

    skill = statistics(server, "skill", ruleset)
    [spread] = chart_data(page, "skill-chart")
    assert spread["data"] == [row["dispersion"] for row in skill["benchmarks"]] + [skill["dispersion"]]
    if ruleset == "evo2":  # three players sat at each of its five games: enough to be counted
        assert skill["dispersion"] is not None and skill["skill_share"] is not None
        assert page.text_content("#skill-chart .note").startswith(f"skill share {100 * skill['skill_share']:.1f}%")


def csv_links_download_their_tables(page: Any, server: str) -> None:
    links = page.eval_on_selector_all(".chart .csv:not([hidden])", "links => links.map(link => link.href)")
    assert len(links) == 11 and any(link.endswith("/read_e1_die_rolls.csv") for link in links)
    for link in links:
        answer = httpx.get(link)
        table = link.rsplit("/", 1)[1].removesuffix(".csv")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv"), link
        assert answer.text.startswith(("game_id,", "ruleset,")), f"{table}: {answer.text[:80]}"
        assert len(answer.text.splitlines()) > 1, f"{table} has no rows"


def test_the_dashboard_of_an_empty_ledger_says_how_to_begin(page: Any, server: str) -> None:
    page.goto(f"{server}/dashboard")
    page.wait_for_selector("body[data-ready=true]")
    assert page.text_content("#problem") == "no games yet: record or import one, then come back"
    assert chart_data(page, "games-chart")[0]["data"] == []
