"""Each player's Weng-Lin rating (Plackett-Luce, the `openskill` package) per ruleset, from every finished game
that is neither private nor withdrawn, in the order of their end events in the log, shared places as ties. Games as
they end are rated on from the players' latest ratings; an ending undone, or a game's privacy or withdrawal changed,
makes the tables again from the results, so that they are always what a rebuild from zero gives."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating
from sqlalchemy import Connection, and_, delete, func, insert, or_, select

from projections.people import named_person, person_of, seat_of_person
from projections.schema import GAMES, PEOPLE, PERSON_SEATS, RATINGS, RATINGS_NOW, RESULTS, Scope, counted_games

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Placing:
    ruleset: str
    game_id: str
    ended: int
    player_id: str
    name: str
    rank: int
    person_id: str = ""

    @property
    def person(self) -> str:
        """The person who sat: the stable id's own where no person's record claims it."""
        return self.person_id or self.player_id


def finished_games(connection: Connection, only: Collection[str] | None = None) -> Iterator[Placing]:
    """Every place of every finished public game not withdrawn (of `only`, when given), in the order of their end
    events in the log: each the place of a person (`read_person_seats`), named as the person's record names them,
    else as they sat. A person seated twice at one table (two of its stable ids) is placed once, at the better of
    its places."""
    where = and_(
        GAMES.c.status == "over", GAMES.c.private.is_(False), GAMES.c.withdrawn.is_(False), RESULTS.c.undone.is_(False)
    )
    if only is not None:
        where = and_(where, GAMES.c.game_id.in_(sorted(only)))
    query = (
        select(
            GAMES.c.ruleset,
            GAMES.c.game_id,
            GAMES.c.ended_position,
            RESULTS.c.player_id,
            func.coalesce(PEOPLE.c.name, RESULTS.c.name),
            RESULTS.c.rank,
            person_of(RESULTS.c.player_id),
        )
        .join(RESULTS, RESULTS.c.game_id == GAMES.c.game_id)
        .outerjoin(PERSON_SEATS, seat_of_person(RESULTS.c.player_id))
        .outerjoin(PEOPLE, named_person(RESULTS.c.player_id))
        .where(where)
        .order_by(GAMES.c.ruleset, GAMES.c.ended_position, RESULTS.c.rank, RESULTS.c.player_id)
    )
    # Players sharing a place in the order of their ids as Python compares them, whatever the database's collation.
    placings = sorted((Placing(*row) for row in connection.execute(query)), key=in_order_ended)
    yield from each_person_once(placings)


def each_person_once(placings: Iterable[Placing]) -> Iterator[Placing]:
    """The placings in their order, each person's first in each game only (its better place)."""
    placed: set[tuple[str, str]] = set()
    for placing in placings:
        if (placing.game_id, placing.person) not in placed:
            placed.add((placing.game_id, placing.person))
            yield placing


def in_order_ended(placing: Placing) -> tuple[str, int, str, int, str]:
    return placing.ruleset, placing.ended, placing.game_id, placing.rank, placing.player_id


def ratings(placings: Iterator[Placing]) -> Iterator[dict[str, Any]]:
    """The rows of the ratings table, game by game, each player's rating carried from its last game."""
    for ruleset, in_ruleset in groupby(placings, key=lambda placing: placing.ruleset):
        current: dict[str, PlackettLuceRating] = {}
        for number, (game_id, places) in enumerate(groupby(in_ruleset, key=lambda p: p.game_id), start=1):
            yield from rate_game(ruleset, game_id, number, list(places), current)


def rate_endings(connection: Connection, game_ids: Collection[str]) -> None:
    """The games just ended rated on from the players' latest ratings, after every game rated before."""
    rows: list[dict[str, Any]] = []
    for ruleset, in_ruleset in groupby(finished_games(connection, game_ids), key=lambda placing: placing.ruleset):
        placings = list(in_ruleset)
        done = connection.execute(select(func.max(RATINGS.c.game)).where(RATINGS.c.ruleset == ruleset)).scalar()
        current = latest_ratings(connection, ruleset, {placing.person for placing in placings})
        for number, (game_id, places) in enumerate(groupby(placings, key=lambda p: p.game_id), start=(done or 0) + 1):
            rows.extend(rate_game(ruleset, game_id, number, list(places), current))
    write_ratings(connection, rows)


def latest_ratings(connection: Connection, ruleset: str, people: Collection[str]) -> dict[str, PlackettLuceRating]:
    query = select(RATINGS_NOW.c.person_id, RATINGS_NOW.c.mu, RATINGS_NOW.c.sigma).where(
        RATINGS_NOW.c.ruleset == ruleset, RATINGS_NOW.c.person_id.in_(sorted(people))
    )
    return {person: MODEL.rating(mu=mu, sigma=sigma) for person, mu, sigma in connection.execute(query)}


def rate_game(
    ruleset: str, game_id: str, number: int, places: Sequence[Placing], current: dict[str, PlackettLuceRating]
) -> Iterator[dict[str, Any]]:
    teams = [[current.get(place.person) or MODEL.rating()] for place in places]
    rated = MODEL.rate(teams, ranks=[place.rank for place in places]) if len(places) > 1 else teams
    for place, [rating] in zip(places, rated, strict=True):
        current[place.person] = rating
        yield {
            "ruleset": ruleset,
            "game_id": game_id,
            "person_id": place.person,
            "player_id": place.player_id,
            "game": number,
            "name": place.name,
            "place": place.rank,
            "mu": rating.mu,
            "sigma": rating.sigma,
            "ordinal": rating.ordinal(),
        }


def refresh_ratings(connection: Connection) -> None:
    """The ratings tables made again from the results as they stand."""
    rows = list(ratings(finished_games(connection)))
    connection.execute(delete(RATINGS))
    connection.execute(delete(RATINGS_NOW))
    write_ratings(connection, rows, replacing=False)


def write_ratings(connection: Connection, rows: list[dict[str, Any]], replacing: bool = True) -> None:
    """New rows of the ratings table, and each person's latest rating (`replacing` the one it had)."""
    if not rows:
        return
    connection.execute(insert(RATINGS), rows)
    latest = {(row["ruleset"], row["person_id"]): row for row in rows}
    if replacing:
        keys = [and_(RATINGS_NOW.c.ruleset == rs, RATINGS_NOW.c.person_id == person) for rs, person in latest]
        connection.execute(delete(RATINGS_NOW).where(or_(*keys)))
    columns = ("ruleset", "person_id", "player_id", "game_id", "game", "mu", "sigma")
    now = [{key: row[key] for key in columns} for row in latest.values()]
    connection.execute(insert(RATINGS_NOW), now)


def standings(connection: Connection, ruleset: str) -> list[dict[str, Any]]:
    """Each person's latest rating in the ruleset, the highest ordinal first, with how many games it rests on, the
    stable id they sat under at the latest and the name they are rated under there."""
    counted = (
        select(RATINGS.c.person_id, func.count().label("games"))
        .where(RATINGS.c.ruleset == ruleset)
        .group_by(RATINGS.c.person_id)
        .subquery()
    )
    query = (
        select(
            RATINGS.c.person_id,
            RATINGS.c.player_id,
            RATINGS.c.name,
            counted.c.games,
            RATINGS.c.mu,
            RATINGS.c.sigma,
            RATINGS.c.ordinal,
        )
        .join(
            RATINGS_NOW,
            and_(
                RATINGS_NOW.c.ruleset == RATINGS.c.ruleset,
                RATINGS_NOW.c.game_id == RATINGS.c.game_id,
                RATINGS_NOW.c.person_id == RATINGS.c.person_id,
            ),
        )
        .join(counted, counted.c.person_id == RATINGS.c.person_id)
        .where(RATINGS.c.ruleset == ruleset)
        .order_by(RATINGS.c.ordinal.desc(), RATINGS.c.name)
    )
    return [dict(row) for row in connection.execute(query).mappings()]


def scoped_standings(connection: Connection, ruleset: str, scope: Scope) -> list[dict[str, Any]]:
    """Each person's rating made from zero from the ruleset's games of the scope alone (a competition's, a
    season's) that `finished_games` rates, in the order they ended: the highest ordinal first, as `standings` gives
    the ratings of every game."""
    latest: dict[str, dict[str, Any]] = {}
    games: Counter[str] = Counter()
    for row in scoped_ratings(connection, ruleset, scope):
        latest[row["person_id"]] = row
        games[row["person_id"]] += 1
    shown = ("person_id", "player_id", "name", "mu", "sigma", "ordinal")
    rows = [{**{key: row[key] for key in shown}, "games": games[person]} for person, row in latest.items()]
    return sorted(rows, key=lambda row: (-row["ordinal"], row["name"]))


def scoped_ratings(connection: Connection, ruleset: str, scope: Scope) -> Iterator[dict[str, Any]]:
    """The rows a ratings table made from zero from the ruleset's games of the scope alone (a competition's, a
    season's) would hold, in the order the games ended: each game's number counts the scope's rated games."""
    in_scope = select(GAMES.c.game_id).where(GAMES.c.ruleset == ruleset, counted_games(scope))
    game_ids = list(connection.execute(in_scope).scalars())
    return ratings(finished_games(connection, only=game_ids))
