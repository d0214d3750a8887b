"""Standings and auction histories for every ruleset, checked against the shipped games themselves (their actions
and their folded states), not against what the read tables hold: every evo1 game has standings for every turn and
its bids in the order its log has them; every traits game has standings for every millennium; a game of a
ruleset without auctions has none."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.transfer import import_notation
from evo_ledger.game.notation import parse_game
from evo_ledger.rules.evo1.actions import Bid
from evo_ledger.rules.evo1.autosaur import autosaurs_of
from evo_ledger.rules.evo1.reading import Evo1Reading
from projections import queries
from projections.runner import Projector
from projections.store import ReadStore
from tests.helpers.support import ROOT

REPLAYS = sorted((ROOT / "replays").glob("*.evo"))
EVO1 = [path for path in REPLAYS if path.name.startswith("evo1-")]
TRAITS = [path for path in REPLAYS if path.name.startswith("traits-")]


def reported(ledger: Ledger, path: Path, report: str) -> tuple[Any, dict[str, Any]]:
    """The game stored, the read tables caught up, and the report on it."""
    game_id = import_notation(ledger, path.read_text(), path.parent).game_id
    store = ReadStore(ledger.settings)
    try:
        Projector(ledger, store).catch_up()
        with store.engine.connect() as connection:
            game = ledger.queries.game(game_id)
            return game, queries.game_report(connection, str(game_id), game.ruleset_name, report)
    finally:
        store.close()


@pytest.mark.parametrize("path", EVO1, ids=[path.stem for path in EVO1])
def test_every_evo1_game_has_standings_for_every_turn(ledger: Ledger, path: Path) -> None:
    game, standings = reported(ledger, path, "standings")
    turns = {row["round"] for row in standings["turns"]}
    assert turns == set(range(1, game.state.turn + 1)), (sorted(turns), game.state.turn)
    for turn in turns:
        assert sorted(row["name"] for row in standings["turns"] if row["round"] == turn) == sorted(game.player_names)
    outcome = game.rules.outcome(game.state)
    ranked = sorted((standing.rank, standing.player) for standing in outcome.standings)
    assert [(row["rank"], row["name"]) for row in standings["final"]] == ranked


@pytest.mark.parametrize("path", EVO1, ids=[path.stem for path in EVO1])
def test_every_evo1_games_auction_history_has_its_logs_bids(ledger: Ledger, path: Path) -> None:
    game, history = reported(ledger, path, "auctions")
    rules = game.rules
    bids = [
        (action.player, action.amount, action.target)
        for line in parse_game(path.read_text()).actions
        if isinstance(action := rules.parse_action(line.text), Bid)
    ]
    assert bids, "a shipped evo1 game holds an auction every turn"
    assert [(row["name"], row["amount"], row["target"]) for row in history["bids"]] == bids
    settled = game.rules.vocabulary.consequences["auction_settled"]
    turns = {event.data["turn"] for event in ledger.queries.game_events(game.id) if type(event).__name__ == settled}
    assert {row["round"] for row in history["results"]} == turns


@pytest.mark.parametrize("path", TRAITS, ids=[path.stem for path in TRAITS])
def test_every_traits_game_has_standings_for_every_millennium(ledger: Ledger, path: Path) -> None:
    game, standings = reported(ledger, path, "standings")
    millennia = {row["round"] for row in standings["millennia"]}
    assert millennia == set(range(1, game.state.millennium + 1)), (sorted(millennia), game.state.millennium)
    assert {row["name"] for row in standings["millennia"]} == set(game.player_names)
    assert standings["final"] and standings["final"][0]["rank"] == 1


def test_autosaur_seats_are_counted_apart_from_players_seats_as_the_games_end_AS_01(ledger: Ledger) -> None:
    expected: Counter[tuple[bool, str]] = Counter()
    for path in EVO1:
        game_id = import_notation(ledger, path.read_text(), path.parent).game_id
        game = ledger.queries.game(game_id)
        autosaurs = set(autosaurs_of(game.options.get("autosaurs")))
        outcome = game.rules.outcome(game.state)
        assert outcome is not None, path.name
        for standing in outcome.standings:
            expected[(standing.player in autosaurs, "seats")] += 1
            expected[(standing.player in autosaurs, "wins")] += standing.rank == 1
    store = ReadStore(ledger.settings)
    try:
        Projector(ledger, store).catch_up()
        with store.engine.connect() as connection:
            rows = queries.ruleset_statistic(connection, Evo1Reading.statistics["autosaurs"])
    finally:
        store.close()
    assert expected[(True, "seats")] > 0 and expected[(False, "seats")] > 0
    assert {(row["autosaur"], "seats"): row["seats"] for row in rows} | {
        (row["autosaur"], "wins"): row["wins"] for row in rows
    } == dict(expected)


def test_a_game_of_a_ruleset_without_auctions_has_none() -> None:
    with pytest.raises(queries.NoSuchReport, match="a game of traits has no auctions"):
        queries.report_parts("traits", "auctions")
    assert list(queries.report_parts("toy", "standings")) == ["final"]  # every ruleset's results
