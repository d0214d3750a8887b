"""Win rates by seat and by place in the opening order of play, with their Wilson intervals, game lengths and
score margins, for every ruleset: checked against what the games themselves say."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from api import ApiSettings, create_app
from evo_ledger.app.ledger import Ledger
from evo_ledger.app.selfplay import play_game
from evo_ledger.app.transfer import import_notation
from evo_ledger.game.checker import start
from evo_ledger.game.notation import parse_game
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.contract import is_chance
from evo_ledger.settings import Settings
from projections import outcomes, queries
from projections.runner import Projector
from projections.schema import TURN_ORDER
from projections.store import ReadStore

PLAYERS = {"evo2": (2, 3), "evo1": (3, 4), "traits": (2, 3)}


def last_round(ruleset: str, state: Any) -> int:
    """The round a finished game ended in, as the read tables count rounds."""
    round_: int = {"evo2": lambda: state.round, "evo1": lambda: state.turn, "traits": lambda: state.millennium}[
        ruleset
    ]()
    return round_


def orders_set(players: tuple[str, ...], consequences: Any) -> list[tuple[str, ...]]:
    """The orders of play the consequences set: evo2's and evo1's initiative, or the traits start player and the
    players to their left."""
    found = []
    for kind, data in consequences:
        if kind == "initiative_set":
            found.append(tuple(data["order"]))
        elif kind == "millennium_begun":
            first = players.index(data["start"])
            found.append(players[first:] + players[:first])
    return found


def opening_order(ruleset: str, players: tuple[str, ...], consequences: Any) -> tuple[str, ...] | None:
    return next(iter(orders_set(players, consequences)), None)


def test_the_wilson_interval_of_a_proportion() -> None:
    low, high = outcomes.wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert outcomes.wilson(0, 0) == (0.0, 1.0)
    assert outcomes.wilson(10, 10)[1] == pytest.approx(1.0)


@pytest.mark.parametrize("ruleset", sorted(PLAYERS))
def test_seat_win_rates_game_lengths_and_margins_agree_with_the_games(database: str, ruleset: str) -> None:
    settings = Settings(database)
    ledger, store = Ledger(settings), ReadStore(settings)
    wins, games = Counter[tuple[int, int]](), Counter[tuple[int, int]]()
    rounds: dict[tuple[int, str], list[int]] = {}
    margins: dict[int, list[int]] = {}
    place_wins, place_games = Counter[tuple[int, int]](), Counter[tuple[int, int]]()
    names: set[str] = set()
    try:
        for seed in range(8):
            players = PLAYERS[ruleset][seed % 2]
            text = play_game(players, seed, "random" if seed % 3 else "sensible", ruleset).text()
            import_notation(ledger, text)
            game = parse_game(text)
            names.update(game.header.players)
            for seat, name in enumerate(game.header.players, start=1):
                games[players, seat] += 1
                wins[players, seat] += any(s.player == name and s.rank == 1 for s in game.result or ())
            scores = sorted((s.score[0] for s in game.result or ()), reverse=True)
            margins.setdefault(players, []).append(scores[0] - scores[1])
            rules, state = get_ruleset(ruleset), start(game)
            opening: tuple[str, ...] | None = None
            for line in game.actions:
                state, consequences, _ = rules.apply(state, line.action)
                opening = opening or opening_order(ruleset, game.header.players, consequences)
            assert opening is not None
            for place, name in enumerate(opening, start=1):
                place_games[players, place] += 1
                place_wins[players, place] += any(s.player == name and s.rank == 1 for s in game.result or ())
            rounds.setdefault((players, game.header.kit), []).append(last_round(ruleset, state))
        Projector(ledger, store).catch_up()
        with store.engine.connect() as connection:
            seats = outcomes.seat_wins(connection, ruleset)
            lengths = outcomes.game_lengths(connection, ruleset)
            spread = outcomes.score_margins(connection, ruleset)
            places = outcomes.first_place_wins(connection, ruleset)
            counts = outcomes.ruleset_counts(connection)
        assert counts == [{"ruleset": ruleset, "games": 8, "finished": 8, "players": len(names)}]
        assert {(r["players"], r["seat"]): (r["games"], r["wins"]) for r in seats} == {
            key: (games[key], wins[key]) for key in games
        }
        assert all(r["low"] <= r["win_rate"] <= r["high"] for r in seats)
        assert {(r["players"], r["place"]): (r["games"], r["wins"]) for r in places} == {
            key: (place_games[key], place_wins[key]) for key in place_games
        }
        assert {(r["players"], r["kit"]): (r["games"], r["mean_rounds"]) for r in lengths} == {
            key: (len(values), pytest.approx(sum(values) / len(values))) for key, values in rounds.items()
        }
        assert {r["players"]: (r["games"], r["mean_margin"], r["most_margin"]) for r in spread} == {
            players: (len(values), pytest.approx(sum(values) / len(values)), max(values))
            for players, values in margins.items()
        }
        served_alike(settings, ruleset, {"seats": seats, "first-places": places})
        with TestClient(create_app(ApiSettings(store=settings))) as client:
            assert client.get("/v1/statistics/rulesets").json()["rows"] == counts
    finally:
        store.close()
        ledger.close()


def served_alike(settings: Settings, ruleset: str, read: dict[str, list[dict[str, Any]]]) -> None:
    """The endpoints serve the rows the queries read; the others answer; an unknown ruleset is refused by name."""
    with TestClient(create_app(ApiSettings(store=settings))) as client:
        for path, rows in read.items():
            assert client.get(f"/v1/statistics/{path}", params={"ruleset": ruleset}).json()["rows"] == rows
        for path in ("lengths", "scores"):
            assert client.get(f"/v1/statistics/{path}", params={"ruleset": ruleset}).status_code == 200
        unknown = client.get("/v1/statistics/seats", params={"ruleset": f"{ruleset}x"})
        assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_ruleset"
        assert f"{ruleset}x" in unknown.json()["message"]


@pytest.mark.parametrize("ruleset", ["evo2", "evo1"])
def test_dice_by_ruleset_and_purpose_agree_with_the_games(database: str, ruleset: str) -> None:
    settings = Settings(database)
    ledger, store = Ledger(settings), ReadStore(settings)
    faces, consequences = Counter[str](), Counter[str]()
    try:
        for seed in range(6):
            text = play_game(PLAYERS[ruleset][seed % 2], seed, "sensible", ruleset).text()
            import_notation(ledger, text)
            game = parse_game(text)
            rules, state = get_ruleset(ruleset), start(game)
            for line in game.actions:
                state, derived, _ = rules.apply(state, line.action)
                if is_chance(rules, line.action) and hasattr(line.action, "face"):
                    faces[str(line.action.face)] += 1
                    consequences.update(kind for kind, _ in derived)
        Projector(ledger, store).catch_up()
        with store.engine.connect() as connection:
            dice = queries.die_faces(connection, ruleset)
        assert dice["fit"]["observed"] == {face: faces[face] for face in dice["faces"]}
        assert dice["fit"]["rolls"] == sum(faces.values()) > 20
        by_purpose = {purpose: sum(observed.values()) for purpose, observed in dice["by_purpose"].items()}
        if ruleset == "evo1":
            assert by_purpose["climate"] == consequences["climate_changed"]
            assert by_purpose["meteor"] == consequences["meteor_rolled"]
        assert by_purpose["combat"] == consequences["combat_resolved"]
        assert set(dice["fit_by_purpose"]) == set(by_purpose)
        assert all(fit["rolls"] == by_purpose[purpose] for purpose, fit in dice["fit_by_purpose"].items())
        with TestClient(create_app(ApiSettings(store=settings))) as client:
            served = client.get("/v1/statistics/dice", params={"ruleset": ruleset}).json()
            assert (served["die"], served["by_purpose"]) == (dice["die"], dice["by_purpose"])
            refused = client.get("/v1/statistics/dice", params={"ruleset": "traits"})
            assert refused.status_code == 404 and refused.json()["code"] == "no_dice"
    finally:
        store.close()
        ledger.close()


@pytest.mark.parametrize("ruleset", sorted(PLAYERS))
def test_the_turn_order_table_holds_every_order_the_rules_set(database: str, ruleset: str) -> None:
    settings = Settings(database)
    ledger, store = Ledger(settings), ReadStore(settings)
    expected: dict[str, list[tuple[str, ...]]] = {}
    try:
        for seed in range(3):
            text = play_game(PLAYERS[ruleset][seed % 2], seed, "sensible", ruleset).text()
            game_id = str(import_notation(ledger, text).game_id)
            game = parse_game(text)
            rules, state = get_ruleset(ruleset), start(game)
            for line in game.actions:
                state, consequences, _ = rules.apply(state, line.action)
                expected.setdefault(game_id, []).extend(orders_set(game.header.players, consequences))
        Projector(ledger, store).catch_up()
        found: dict[str, dict[int, list[str]]] = {}
        with store.engine.connect() as connection:
            rows = connection.execute(
                select(TURN_ORDER.c.game_id, TURN_ORDER.c.event, TURN_ORDER.c.name).order_by(
                    TURN_ORDER.c.game_id, TURN_ORDER.c.event, TURN_ORDER.c.place
                )
            )
            for game_id, event, name in rows:
                found.setdefault(game_id, {}).setdefault(event, []).append(name)
        assert {game: [tuple(order) for order in events.values()] for game, events in found.items()} == expected
        assert all(len(orders) > 1 for orders in expected.values())
    finally:
        store.close()
        ledger.close()
