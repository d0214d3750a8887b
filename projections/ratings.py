"""Each player's Weng-Lin rating (Plackett-Luce, the `openskill` package) per ruleset, from every finished game
that is not private, in the order the games ended, shared places as ties. The table is made again from the results
whenever a game ends, an ending is undone or a game's privacy changes, so that it is always what a rebuild from
zero gives."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating
from sqlalchemy import Connection, and_, delete, insert, select

from projections.schema import GAMES, RATINGS, RESULTS

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Placing:
    ruleset: str
    game_id: str
    ended_at: str
    player_id: str
    name: str
    rank: int


def finished_games(connection: Connection) -> Iterator[Placing]:
    """Every place of every finished public game, in the order the games ended (the game's id breaks a tie)."""
    query = (
        select(GAMES.c.ruleset, GAMES.c.game_id, GAMES.c.ended_at, RESULTS.c.player_id, RESULTS.c.name, RESULTS.c.rank)
        .join(RESULTS, RESULTS.c.game_id == GAMES.c.game_id)
        .where(and_(GAMES.c.status == "over", GAMES.c.private.is_(False), RESULTS.c.undone.is_(False)))
        .order_by(GAMES.c.ruleset, GAMES.c.ended_at, GAMES.c.game_id, RESULTS.c.rank, RESULTS.c.player_id)
    )
    for row in connection.execute(query):
        yield Placing(*row)


def ratings(placings: Iterator[Placing]) -> Iterator[dict[str, Any]]:
    """The rows of the ratings table, game by game, each player's rating carried from its last game."""
    for ruleset, in_ruleset in groupby(placings, key=lambda placing: placing.ruleset):
        current: dict[str, PlackettLuceRating] = {}
        for number, (game_id, places) in enumerate(groupby(in_ruleset, key=lambda p: p.game_id), start=1):
            yield from rate_game(ruleset, game_id, number, list(places), current)


def rate_game(
    ruleset: str, game_id: str, number: int, places: Sequence[Placing], current: dict[str, PlackettLuceRating]
) -> Iterator[dict[str, Any]]:
    teams = [[current.get(place.player_id) or MODEL.rating()] for place in places]
    rated = MODEL.rate(teams, ranks=[place.rank for place in places]) if len(places) > 1 else teams
    for place, [rating] in zip(places, rated, strict=True):
        current[place.player_id] = rating
        yield {
            "ruleset": ruleset, "game_id": game_id, "player_id": place.player_id, "game": number, "name": place.name,
            "place": place.rank, "mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal(),
        }  # fmt: skip


def refresh_ratings(connection: Connection) -> None:
    """The ratings table made again from the results as they stand."""
    rows = list(ratings(finished_games(connection)))
    connection.execute(delete(RATINGS))
    if rows:
        connection.execute(insert(RATINGS), rows)


def standings(connection: Connection, ruleset: str) -> list[dict[str, Any]]:
    """Each player's latest rating in the ruleset, the highest ordinal first, with how many games it rests on."""
    rows = connection.execute(
        select(RATINGS).where(RATINGS.c.ruleset == ruleset).order_by(RATINGS.c.player_id, RATINGS.c.game)
    ).mappings()
    latest: dict[str, dict[str, Any]] = {}
    games: dict[str, int] = {}
    for row in rows:
        latest[row["player_id"]] = dict(row)
        games[row["player_id"]] = games.get(row["player_id"], 0) + 1
    ranked = sorted(latest.values(), key=lambda row: (-row["ordinal"], row["name"]))
    return [
        {"player_id": r["player_id"], "name": r["name"], "games": games[r["player_id"]], "mu": r["mu"],
         "sigma": r["sigma"], "ordinal": r["ordinal"]}
        for r in ranked
    ]  # fmt: skip
