"""Each player's Weng-Lin rating (Plackett-Luce, the `openskill` package) per ruleset, from every finished game
that is not private, in the order the games ended, shared places as ties. Games that end after every game rated
so far are rated on from the players' latest ratings; an ending undone, a game's privacy changed or an ending out
of order makes the table again from the results, so that it is always what a rebuild from zero gives."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
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


def finished_games(connection: Connection, only: Collection[str] | None = None) -> Iterator[Placing]:
    """Every place of every finished public game (of `only`, when given), in the order the games ended (the
    game's id breaks a tie)."""
    where = and_(GAMES.c.status == "over", GAMES.c.private.is_(False), RESULTS.c.undone.is_(False))
    if only is not None:
        where = and_(where, GAMES.c.game_id.in_(sorted(only)))
    query = (
        select(GAMES.c.ruleset, GAMES.c.game_id, GAMES.c.ended_at, RESULTS.c.player_id, RESULTS.c.name, RESULTS.c.rank)
        .join(RESULTS, RESULTS.c.game_id == GAMES.c.game_id)
        .where(where)
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


def rate_endings(connection: Connection, game_ids: Collection[str]) -> None:
    """The games just ended rated on from where each ruleset's ratings stand; if one ended before a game already
    rated, the whole table is made again."""
    rows: list[dict[str, Any]] = []
    for ruleset, in_ruleset in groupby(finished_games(connection, game_ids), key=lambda placing: placing.ruleset):
        placings = list(in_ruleset)
        last = last_rated(connection, ruleset)
        if last is not None and (placings[0].ended_at, placings[0].game_id) <= last[1:]:
            refresh_ratings(connection)
            return
        first = last[0] + 1 if last is not None else 1
        current = latest_ratings(connection, ruleset, {placing.player_id for placing in placings})
        for number, (game_id, places) in enumerate(groupby(placings, key=lambda p: p.game_id), start=first):
            rows.extend(rate_game(ruleset, game_id, number, list(places), current))
    if rows:
        connection.execute(insert(RATINGS), rows)


def last_rated(connection: Connection, ruleset: str) -> tuple[int, str, str] | None:
    """The ruleset's latest rated game: its number, when it ended and its id."""
    query = (
        select(RATINGS.c.game, GAMES.c.ended_at, RATINGS.c.game_id)
        .join(GAMES, GAMES.c.game_id == RATINGS.c.game_id)
        .where(RATINGS.c.ruleset == ruleset)
        .order_by(RATINGS.c.game.desc())
        .limit(1)
    )
    row = connection.execute(query).first()
    return (row[0], row[1], row[2]) if row is not None else None


def latest_ratings(connection: Connection, ruleset: str, players: Collection[str]) -> dict[str, PlackettLuceRating]:
    query = (
        select(RATINGS.c.player_id, RATINGS.c.mu, RATINGS.c.sigma)
        .where(RATINGS.c.ruleset == ruleset, RATINGS.c.player_id.in_(sorted(players)))
        .order_by(RATINGS.c.game)
    )
    return {player: MODEL.rating(mu=mu, sigma=sigma) for player, mu, sigma in connection.execute(query)}


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
