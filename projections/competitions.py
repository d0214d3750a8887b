"""Competitions in the read tables: each competition's row (`read_competitions`) and its games' rows
(`read_competition_games`), written from its record's events, and its standings, counted from the games' results.

A competition's standings count its games that are over, not withdrawn, and counted for the caller (private games'
only where the readers say they count). A row per person: the person a stable id is linked to
(`read_person_seats`), else the stable id itself; named as the person's record names them (`read_people`), else by
the name they last sat under. Each row counts the games played, the wins (first places, shared ones too), the points
and the sum of the games' own scores. A person seated twice at one game (two of their stable ids) counts once there,
at their better seat, with the points that seat was given among all the game's seats: the others keep the places
they took. With `places` scoring, a place gives the points listed for it (none beyond the
list) and players sharing places share those places' points equally: two tied first with [3, 2, 1, 0] get 2.5 each.
With `scores` scoring, the points are the games' own scores summed. The rows are ordered by points, then wins, then
the sum of scores, then fewer games; rows equal in all four share a place and are listed by name."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import groupby
from typing import Any

from sqlalchemy import Connection, and_, delete, func, insert, select

from evo_ledger.app.competitions import Competition, Scoring
from projections.people import named_person, person_of, seat_of_person
from projections.schema import (
    COMPETITION_GAMES,
    COMPETITIONS,
    GAMES,
    PEOPLE,
    PERSON_SEATS,
    RESULTS,
    Scope,
    counted_games,
)


def opened(connection: Connection, event: Any) -> bool:
    row = {
        "competition_id": str(event.originator_id),
        "kind": event.kind,
        "name": event.name,
        "season": event.season,
        "scoring": event.scoring,
        "points": json.dumps(list(event.points)),
        "created_at": event.timestamp.isoformat(),
    }
    connection.execute(insert(COMPETITIONS), [row])
    return False


def game_added(connection: Connection, event: Any) -> bool:
    row = {
        "competition_id": str(event.originator_id),
        "game_id": event.game_id,
        "round": event.round,
        "table_name": event.table,
    }
    connection.execute(insert(COMPETITION_GAMES), [row])
    return False


def game_taken_out(connection: Connection, event: Any) -> bool:
    entry = and_(
        COMPETITION_GAMES.c.competition_id == str(event.originator_id), COMPETITION_GAMES.c.game_id == event.game_id
    )
    connection.execute(delete(COMPETITION_GAMES).where(entry))
    return False


READERS: dict[str, Callable[[Connection, Any], bool]] = {
    Competition.Opened.TOPIC: opened,
    Competition.GameAdded.TOPIC: game_added,
    Competition.GameTakenOut.TOPIC: game_taken_out,
}
"""The function that writes the rows of each of a competition's events (none changes a rating)."""


@dataclass(frozen=True)
class Seat:
    """A seat's result in one of the competition's games: the stable id that sat, its person, and the name the
    person is known by there."""

    game_id: str
    ended: int
    player_id: str
    person_id: str
    name: str
    rank: int
    score: int


@dataclass
class Tally:
    """A person's line in the standings, as the games are counted."""

    person_id: str
    name: str = ""
    last_ended: int = -1
    games: set[str] = field(default_factory=set)
    wins: int = 0
    points: Fraction = Fraction(0)
    score: int = 0

    def key(self) -> tuple[Fraction, int, int, int]:
        """What orders the standings, best first: the most points, wins and score, then the fewest games."""
        return -self.points, -self.wins, -self.score, len(self.games)


def standings(
    connection: Connection,
    competition_id: str,
    scoring: Scoring,
    include_private: bool = False,
    shown: Callable[[str], str] = str,
) -> list[dict[str, Any]]:
    """The competition's standings, a row per person, best first (the module says how they are counted):
    `place` (shared by rows equal in points, wins, score and games, listed by name as it is `shown`: a seat's
    label as its handle), `person_id`, `name`, `games`, `wins`, `points` and `score` (the sum of the games' own
    scores)."""
    tallies: dict[str, Tally] = {}
    for _, in_game in groupby(counted_seats(connection, competition_id, include_private), key=lambda s: s.game_id):
        played = list(in_game)
        for seat, points in each_person_once(played, game_points(played, scoring)):
            count_seat(tallies.setdefault(seat.person_id, Tally(seat.person_id)), seat, points)
    return ranked_rows(tallies.values(), shown)


def each_person_once(played: Sequence[Seat], points: Sequence[Fraction]) -> Iterator[tuple[Seat, Fraction]]:
    """Each person's better seat of one game (the first, in the order of `played`: by rank) with the points it was
    given among all the game's seats, so that a person seated twice moves no one else's place."""
    counted: set[str] = set()
    for seat, worth in zip(played, points, strict=True):
        if seat.person_id not in counted:
            counted.add(seat.person_id)
            yield seat, worth


def count_seat(tally: Tally, seat: Seat, points: Fraction) -> None:
    """The seat counted in its person's line: named as at the game that ended last."""
    tally.games.add(seat.game_id)
    tally.wins += seat.rank == 1
    tally.points += points
    tally.score += seat.score
    if seat.ended >= tally.last_ended:
        tally.name, tally.last_ended = seat.name, seat.ended


def ranked_rows(tallies: Iterable[Tally], shown: Callable[[str], str] = str) -> list[dict[str, Any]]:
    """The rows in order, each with its place: one more than the rows strictly ahead of it."""
    counted = list(tallies)
    names = shown("\n".join(tally.name for tally in counted)).split("\n") if counted else []
    by_name = {tally.person_id: name for tally, name in zip(counted, names, strict=True)}
    ordered = sorted(counted, key=lambda tally: (tally.key(), by_name[tally.person_id], tally.person_id))
    rows: list[dict[str, Any]] = []
    for index, tally in enumerate(ordered):
        ahead = rows[-1]["place"] if index and ordered[index - 1].key() == tally.key() else index + 1
        rows.append(
            {
                "place": ahead,
                "person_id": tally.person_id,
                "name": tally.name,
                "games": len(tally.games),
                "wins": tally.wins,
                "points": float(tally.points),
                "score": tally.score,
            }
        )
    return rows


def game_points(played: Sequence[Seat], scoring: Scoring) -> list[Fraction]:
    """The points each seat of one game gives, in the order of `played` (by rank): its own score with `scores`
    scoring; with `places`, the mean of the points of the places the players sharing its rank take."""
    if scoring.method == "scores":
        return [Fraction(seat.score) for seat in played]
    worth = [Fraction(points) for points in scoring.points]
    given: list[Fraction] = []
    for _, tied in groupby(played, key=lambda seat: seat.rank):
        sharing = len(list(tied))
        first = len(given)  # the places before this rank's, counted from 0
        taken = [worth[place] if place < len(worth) else Fraction(0) for place in range(first, first + sharing)]
        given.extend([sum(taken, Fraction(0)) / sharing] * sharing)
    return given


def counted_seats(connection: Connection, competition_id: str, include_private: bool) -> list[Seat]:
    """Every seat's result in the competition's games that count (over, not withdrawn, counted for the caller),
    each with its person (`person_of`) and the person's name (their record's, else the seat's): by game in the
    order they ended, each game's by rank, then stable id."""
    query = (
        select(
            GAMES.c.game_id,
            GAMES.c.ended_position,
            RESULTS.c.player_id,
            person_of(RESULTS.c.player_id),
            func.coalesce(PEOPLE.c.name, RESULTS.c.name),
            RESULTS.c.rank,
            RESULTS.c.score,
        )
        .join(RESULTS, RESULTS.c.game_id == GAMES.c.game_id)
        .outerjoin(PERSON_SEATS, seat_of_person(RESULTS.c.player_id))
        .outerjoin(PEOPLE, named_person(RESULTS.c.player_id))
        .where(
            GAMES.c.status == "over",
            counted_games(Scope(include_private, competition=competition_id)),
            RESULTS.c.undone.is_(False),
        )
    )
    seats = [
        Seat(game, ended or 0, player, person, name, rank, score)
        for game, ended, player, person, name, rank, score in connection.execute(query)
    ]
    return sorted(seats, key=lambda seat: (seat.ended, seat.game_id, seat.rank, seat.player_id))
