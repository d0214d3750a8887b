"""With one ruleset installed (each of the four in turn, the others' entry points hidden from every process of the
server), a stored game of it has its standings, the ruleset's own statistics are served, and the dashboard draws
the common charts and its panels."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers.pages import caught_up, chart_data, the_rulesets_own_panels_show_its_statistics
from tests.helpers.support import ROOT, child_env, serve_process
from tests.helpers.toy_game import WHOLE_GAME

pytestmark = pytest.mark.slow(reason="drives Chromium: the quick tier's one browser test is test_smoke")

ONE_RULESET = ROOT / "tests" / "one_ruleset"
REPLAYS = ROOT / "replays"
GAME_FILES = {"evo2": "hand-3p-first-game.evo", "evo1": "evo1-hand-3p.evo", "traits": "traits-hand-2p.evo"}


def game_file(ruleset: str) -> str:
    if ruleset in GAME_FILES:
        return (REPLAYS / GAME_FILES[ruleset]).read_text()
    return "ruleset toy 1\nkit toy-2p\nplayers ann ben\n" + "\n".join(WHOLE_GAME) + "\n"


@pytest.fixture(params=["toy", "evo1", "evo2", "traits"])
def ruleset(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def server(ruleset: str, tmp_path: Path) -> Iterator[str]:
    """`evo-ledger serve` in a process of its own that sees only `ruleset` installed."""
    env = child_env()
    env |= {
        "PYTHONPATH": os.pathsep.join([str(ONE_RULESET), env["PYTHONPATH"]]),
        "EVO_TEST_ONE_RULESET": ruleset,
        "EVO_LEDGER_DATABASE": str(tmp_path / "one-ruleset.sqlite"),
    }
    with serve_process([], env) as served:
        yield served.base


def test_with_one_ruleset_installed_its_games_standings_statistics_and_panels_are_served(
    page: Any, server: str, ruleset: str
) -> None:
    imported = httpx.post(
        f"{server}/v1/games/import", content=game_file(ruleset), headers={"Content-Type": "text/plain"}
    )
    assert imported.status_code == 201, imported.text
    game = imported.json()["game_id"]
    caught_up(server)
    assert [row["ruleset"] for row in httpx.get(f"{server}/v1/statistics/rulesets").json()["rows"]] == [ruleset]
    standings = httpx.get(f"{server}/v1/games/{game}/standings").json()
    assert standings["ruleset"] == ruleset and standings["final"][0]["rank"] == 1, standings
    assert httpx.get(f"{server}/v1/rulesets/chess/statistics").json()["code"] == "unknown_ruleset"
    page.goto(f"{server}/dashboard")
    page.wait_for_selector("body[data-ready=true]")
    assert page.input_value("#ruleset") == ruleset
    assert chart_data(page, "games-chart")[0]["data"] == [1]
    the_rulesets_own_panels_show_its_statistics(page, server, ruleset)
