"""What every ruleset's finished games say, whatever their rules: the win rate of each seat, with its Wilson 95%
interval, and of each place in the order of play a game opens with, how long games run and by what margin
they are won, by the number of players, and each player's profile. Read from `read_games`, `read_game_players`,
`read_results`, `read_turn_order` and `read_ratings`; private games only for the admin, withdrawn games for no
one."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, and_, case, func, select

from projections.people import results_by_person
from projections.ratings import scoped_ratings
from projections.schema import (
    GAME_PLAYERS,
    GAMES,
    PUBLIC_GAMES,
    RATINGS,
    RESULTS,
    TURN_ORDER,
    Scope,
    counted_games,
)

Z_95 = 1.959963984540054
Row = dict[str, Any]


def wilson(wins: int, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a proportion `wins`/`games` (95% by default)."""
    if games == 0:
        return 0.0, 1.0
    share = wins / games
    spread = z * math.sqrt(share * (1 - share) / games + z * z / (4 * games * games))
    centre = share + z * z / (2 * games)
    scale = 1 + z * z / games
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def finished(ruleset: str, scope: Scope) -> Any:
    """The ruleset's finished games that the statistics count (`counted_games`)."""
    return and_(GAMES.c.ruleset == ruleset, GAMES.c.status == "over", counted_games(scope))


def seat_wins(connection: Connection, ruleset: str, scope: Scope = PUBLIC_GAMES) -> list[Row]:
    """Per number of players and seat: games finished, wins (a shared first place is a win), the win rate and its
    Wilson 95% interval."""
    query = (
        _wins_by(GAME_PLAYERS.c.seat)
        .join(GAME_PLAYERS, GAME_PLAYERS.c.game_id == GAMES.c.game_id)
        .join(RESULTS, _result_of(GAME_PLAYERS.c.player_id))
        .where(finished(ruleset, scope))
        .group_by(GAMES.c.players, GAME_PLAYERS.c.seat)
        .order_by(GAMES.c.players, GAME_PLAYERS.c.seat)
    )
    return _win_rates(connection, query, "seat")


def first_place_wins(connection: Connection, ruleset: str, scope: Scope = PUBLIC_GAMES) -> list[Row]:
    """Per number of players and place in the order of play the game opened with (`read_turn_order`'s first
    rows that stand): games finished, wins, the win rate and its Wilson 95% interval."""
    opening = (
        select(TURN_ORDER.c.game_id, func.min(TURN_ORDER.c.event).label("event"))
        .where(TURN_ORDER.c.undone.is_(False))
        .group_by(TURN_ORDER.c.game_id)
        .subquery()
    )
    query = (
        _wins_by(TURN_ORDER.c.place)
        .join(opening, opening.c.game_id == GAMES.c.game_id)
        .join(TURN_ORDER, and_(TURN_ORDER.c.game_id == GAMES.c.game_id, TURN_ORDER.c.event == opening.c.event))
        .join(RESULTS, _result_of(TURN_ORDER.c.player_id))
        .where(finished(ruleset, scope))
        .group_by(GAMES.c.players, TURN_ORDER.c.place)
        .order_by(GAMES.c.players, TURN_ORDER.c.place)
    )
    return _win_rates(connection, query, "place")


def _wins_by(column: Any) -> Any:
    won = case((RESULTS.c.rank == 1, 1), else_=0)
    return select(GAMES.c.players, column, func.count().label("games"), func.sum(won).label("wins"))


def _result_of(player: Any) -> Any:
    """The result, not undone, of `player` in the game."""
    return and_(RESULTS.c.game_id == GAMES.c.game_id, RESULTS.c.player_id == player, RESULTS.c.undone.is_(False))


def _win_rates(connection: Connection, query: Any, by: str) -> list[Row]:
    rows = []
    for players, value, games, wins in connection.execute(query):
        low, high = wilson(int(wins), int(games))
        rows.append(
            {
                "players": players,
                by: value,
                "games": games,
                "wins": int(wins),
                "win_rate": wins / games,
                "low": low,
                "high": high,
            }
        )
    return rows


def game_lengths(connection: Connection, ruleset: str, scope: Scope = PUBLIC_GAMES) -> list[Row]:
    """Per number of players and kit: games finished, and their rounds and events, mean, least and most."""
    query = (
        select(
            GAMES.c.players,
            GAMES.c.kit,
            func.count().label("games"),
            func.avg(GAMES.c.rounds).label("mean_rounds"),
            func.min(GAMES.c.rounds).label("least_rounds"),
            func.max(GAMES.c.rounds).label("most_rounds"),
            func.avg(GAMES.c.events).label("mean_events"),
        )
        .where(finished(ruleset, scope))
        .group_by(GAMES.c.players, GAMES.c.kit)
        .order_by(GAMES.c.players, GAMES.c.kit)
    )
    return [
        {**row, "mean_rounds": float(row["mean_rounds"]), "mean_events": float(row["mean_events"])}
        for row in connection.execute(query).mappings()
    ]


def score_margins(connection: Connection, ruleset: str, scope: Scope = PUBLIC_GAMES) -> list[Row]:
    """Per number of players, over the ruleset's finished games: the winners' and everyone's mean score (the
    ruleset's first score), and the margin, the winner's score less the runner-up's, mean, least and most (0 for
    a shared win)."""
    query = (
        select(GAMES.c.game_id, GAMES.c.players, RESULTS.c.score)
        .join(RESULTS, and_(RESULTS.c.game_id == GAMES.c.game_id, RESULTS.c.undone.is_(False)))
        .where(finished(ruleset, scope))
        .order_by(GAMES.c.players, GAMES.c.game_id, RESULTS.c.rank, RESULTS.c.score.desc())
    )
    by_game: dict[tuple[int, str], list[int]] = {}
    for game_id, players, score in connection.execute(query):
        by_game.setdefault((players, game_id), []).append(score)
    by_count: dict[int, list[list[int]]] = {}
    for (players, _), scores in by_game.items():
        by_count.setdefault(players, []).append(scores)
    rows = []
    for players, games in sorted(by_count.items()):
        margins = [scores[0] - scores[1] for scores in games if len(scores) > 1] or [0]
        everyone = [score for scores in games for score in scores]
        rows.append(
            {
                "players": players,
                "games": len(games),
                "mean_winning_score": sum(s[0] for s in games) / len(games),
                "mean_score": sum(everyone) / len(everyone),
                "mean_margin": sum(margins) / len(margins),
                "least_margin": min(margins),
                "most_margin": max(margins),
            }
        )
    return rows


def profiles(connection: Connection, ruleset: str, scope: Scope = PUBLIC_GAMES) -> list[Row]:
    """Per person (`results_by_person`: a stable id no record claims is its own person), over the ruleset's finished
    games: games, wins, mean place, and the ordinal of its rating after each rated game, in order, with those games'
    numbers among the ruleset's rated games (private games are never rated; `rating_history`: of a competition or a
    season, the ratings made from zero from its games alone)."""
    results = results_by_person()
    won = case((results.c.rank == 1, 1), else_=0)
    query = (
        select(
            results.c.person_id,
            func.min(results.c.player_id).label("player_id"),
            func.max(results.c.person_name).label("name"),
            func.count().label("games"),
            func.sum(won).label("wins"),
            func.avg(results.c.rank).label("mean_place"),
        )
        .join(GAMES, GAMES.c.game_id == results.c.game_id)
        .where(finished(ruleset, scope), results.c.undone.is_(False))
        .group_by(results.c.person_id)
        .order_by(func.count().desc(), results.c.person_id)
    )
    ordinals: dict[str, list[float]] = {}
    games: dict[str, list[int]] = {}
    for person, game, ordinal in rating_history(connection, ruleset, scope):
        ordinals.setdefault(person, []).append(ordinal)
        games.setdefault(person, []).append(game)
    return [
        {
            **row,
            "wins": int(row["wins"]),
            "mean_place": float(row["mean_place"]),
            "ratings": ordinals.get(row["person_id"], []),
            "rated_games": games.get(row["person_id"], []),
        }
        for row in connection.execute(query).mappings()
    ]


def rating_history(connection: Connection, ruleset: str, scope: Scope) -> Iterable[tuple[str, int, float]]:
    """Each rating the ruleset's rated games gave, in the order they were rated, as its person, the game's number
    among those rated and the rating's ordinal: of every game, the ratings table's; of a competition's or a
    season's games, the ratings made from zero from those games alone (`scoped_ratings`), as the ratings'
    statistic gives them so scoped."""
    if scope.competition is None and scope.season is None:
        rated = select(RATINGS.c.person_id, RATINGS.c.game, RATINGS.c.ordinal).where(RATINGS.c.ruleset == ruleset)
        return [(person, game, ordinal) for person, game, ordinal in connection.execute(rated.order_by(RATINGS.c.game))]
    return [(row["person_id"], row["game"], row["ordinal"]) for row in scoped_ratings(connection, ruleset, scope)]


def ruleset_counts(connection: Connection, scope: Scope = PUBLIC_GAMES) -> list[Row]:
    """Per ruleset: games recorded, games finished, and the different players who sat at them."""
    over = case((GAMES.c.status == "over", 1), else_=0)
    visible = counted_games(scope)
    players = (
        select(GAMES.c.ruleset, func.count(func.distinct(GAME_PLAYERS.c.player_id)).label("players"))
        .join(GAME_PLAYERS, GAME_PLAYERS.c.game_id == GAMES.c.game_id)
        .where(visible)
        .group_by(GAMES.c.ruleset)
        .subquery()
    )
    query = (
        select(GAMES.c.ruleset, func.count().label("games"), func.sum(over).label("finished"), players.c.players)
        .join(players, players.c.ruleset == GAMES.c.ruleset)
        .where(visible)
        .group_by(GAMES.c.ruleset, players.c.players)
        .order_by(GAMES.c.ruleset)
    )
    return [{**row, "finished": int(row["finished"])} for row in connection.execute(query).mappings()]
