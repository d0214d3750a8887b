"""Ratings: on self-played mixed tables of each ruleset the sensible bot rates above the random one; the ratings
table is what rating every finished public game in the order they ended gives, and a rebuild gives it again."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce, PlackettLuceRating
from sqlalchemy import select, text

from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import play_game
from evo_ledger.app.transfer import import_notation
from evo_ledger.game.notation import parse_game
from evo_ledger.settings import Settings
from projections import outcomes, ratings
from projections.runner import Projector, rebuild
from projections.schema import RATINGS
from projections.store import ReadStore
from tests.helpers.support import ROOT

GAMES = 16
TABLES = {
    "evo2": ["sensible", "random", "random"],
    "evo1": ["sensible", "random", "random"],
    "traits": ["sensible", "random"],
}


def rated_rows(store: ReadStore) -> list[tuple[object, ...]]:
    with store.engine.connect() as connection:
        query = select(RATINGS).order_by(RATINGS.c.ruleset, RATINGS.c.game, RATINGS.c.player_id)
        return [tuple(row) for row in connection.execute(query)]


@pytest.mark.parametrize("ruleset", sorted(TABLES))
def test_the_sensible_bot_rates_above_the_random_one_and_a_rebuild_gives_the_same_table(
    database: str, ruleset: str
) -> None:
    settings = Settings(database)
    ledger, store = Ledger(settings), ReadStore(settings)
    try:
        seats = TABLES[ruleset]
        texts = []
        for seed in range(GAMES):
            order = seats[seed % len(seats) :] + seats[: seed % len(seats)]  # each bot takes each seat in turn
            texts.append(play_game(len(order), seed, "sensible", ruleset, None, order).text())
            import_notation(ledger, texts[-1])
        Projector(ledger, store).catch_up()
        with store.engine.connect() as connection:
            table = ratings.standings(connection, ruleset)
        by_name = {row["name"]: row for row in table}
        assert by_name["sensible"]["ordinal"] > by_name["random"]["ordinal"]
        assert by_name["sensible"]["games"] == GAMES
        built = rated_rows(store)
        rebuild(ledger, store)
        assert rated_rows(store) == built
        # The same ratings computed straight from the games' results, in the order they were stored.
        model, current = PlackettLuce(), dict[str, PlackettLuceRating]()
        for text in texts:
            standings = parse_game(text).result or ()
            teams = [[current.get(s.player) or model.rating()] for s in standings]
            for standing, [rating] in zip(standings, model.rate(teams, ranks=[s.rank for s in standings]), strict=True):
                current[standing.player] = rating
        assert by_name["sensible"]["mu"] == pytest.approx(current["sensible"].mu)
        assert by_name["random"]["sigma"] == pytest.approx(current["random"].sigma)
        with store.engine.connect() as connection:
            profiles = {row["name"]: row for row in outcomes.profiles(connection, ruleset)}
        sensible = profiles["sensible"]
        places = [s.rank for text in texts for s in parse_game(text).result or () if s.player == "sensible"]
        assert (sensible["games"], sensible["wins"]) == (GAMES, places.count(1))
        assert sensible["mean_place"] == pytest.approx(sum(places) / len(places))
        assert (
            sensible["ratings"][-1] == pytest.approx(by_name["sensible"]["ordinal"])
            and len(sensible["ratings"]) == GAMES
        )
        assert sensible["rated_games"] == list(range(1, GAMES + 1))  # the sensible bot sat at every game
    finally:
        store.close()
        ledger.close()


def test_the_documented_example_query_runs_and_agrees_with_the_endpoint(database: str) -> None:
    settings = Settings(database)
    ledger, store = Ledger(settings), ReadStore(settings)
    try:
        for seed in range(4):
            import_notation(
                ledger, play_game(3, seed, "sensible", "evo1", None, ["sensible", "random", "random"]).text()
            )
        Projector(ledger, store).catch_up()
        page = (ROOT / "docs" / "projections.md").read_text()
        query = page.split("-- the ratings after the latest game of each player, in evo1\n")[1].split("```")[0]
        with store.engine.connect() as connection:
            example = [(name, ordinal) for name, _, _, ordinal in connection.execute(text(query))]
            served = [(row["name"], row["ordinal"]) for row in ratings.standings(connection, "evo1")]
        assert example == served and len(served) == 3
    finally:
        store.close()
        ledger.close()


def test_an_ending_undone_and_a_game_made_private_rate_the_games_again_as_a_rebuild_would(database: str) -> None:
    settings = Settings(database)
    ledger, store = Ledger(settings), ReadStore(settings)
    try:
        receipts = [
            import_notation(ledger, play_game(2, seed, "sensible", "traits", None, ["sensible", "random"]).text())
            for seed in range(5)
        ]
        projector = Projector(ledger, store)
        projector.catch_up()
        assert len(rated_rows(store)) == 10
        ledger.commands.change_access(receipts[1].game_id, lambda access: access.set_private(True))
        ledger.commands.undo(receipts[3].game_id, 1, "the last top-up was misread")
        projector.catch_up()
        after = rated_rows(store)
        assert {row[1] for row in after} == {str(r.game_id) for r in (receipts[0], receipts[2], receipts[4])}
        rebuild(ledger, store)
        assert rated_rows(store) == after
    finally:
        store.close()
        ledger.close()
