"""What the results say once the players' strengths are weighed, for every ruleset, from the games a reader may see
(`read_games`, `read_results`, `read_game_players`, `read_turn_order`; private games only for the admin, withdrawn
games for no one: `outcomes.finished`), computed
when asked: how well the incremental ratings predicted each game before it was played (calibration), what a seat
or a place in the opening order is worth with the players' strengths fitted beside it, the ratings made again in
one fit over the whole history, and how much of the results skill explains against chance and against bots of
known strength. The methods and their references are in docs/projections.md."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import groupby, pairwise
from typing import Any

import numpy as np
from openskill.models import PlackettLuceRating
from sqlalchemy import Connection, and_, func, select

from evo_ledger.app.selfplay import play_game
from evo_ledger.rules import get_ruleset
from evo_ledger.rules.contract import self_play
from projections.luce import (
    SCALE,
    Z_95,
    Fit,
    Ints,
    Seat,
    Tables,
    fit,
    fit_choices,
    ordered_choices,
    table_choices,
)
from projections.outcomes import finished, wilson
from projections.people import named_person, person_of, seat_of_person
from projections.ratings import MODEL, Placing, rate_game
from projections.schema import (
    GAME_PLAYERS,
    GAMES,
    PEOPLE,
    PERSON_SEATS,
    PUBLIC_GAMES,
    RESULTS,
    TURN_ORDER,
    Scope,
)

Row = dict[str, Any]
BINS = 10
SMALLEST_CHANCE = 1e-15
SEED = 2020
SHARES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The shares of a benchmark's games whose results the bots' strengths decide (the rest drawn at random)."""
DRAWS = 2
"""The benchmark sets drawn at each share; their dispersions are averaged."""
BOT_GAMES = 20
MOST_BOT_SEATS = 4
MOST_FITTED = 100_000
"""The players fitted with a strength of their own, a federation's with room to spare: a fit's cost grows with its
results, not its players (`luce`), and this bounds the rows the batch ratings answer with."""
STRONG, WEAK = "sensible", "random"


@dataclass(frozen=True)
class Seated:
    """A player's result in a finished game, with its seat and its place in the order of play the game opened
    with (None where the game set no order). The player is a person (`player_id`: a stable id no record claims is
    its own person), who sat under the stable id `seat_id` (empty: the person's own, `player_id`)."""

    game_id: str
    player_id: str
    name: str
    rank: int
    seat: int
    place: int | None
    seat_id: str = ""


Game = tuple[Seated, ...]


def finished_games(connection: Connection, ruleset: str, scope: Scope = PUBLIC_GAMES) -> list[Game]:
    """The ruleset's finished games the statistics count for the reader (`outcomes.finished`), in the order they
    ended, each seat's result as its person's (named as the person's record names them, else as they sat); a person
    seated twice at one table (two of its stable ids) counts once, at its better place."""
    query = (
        select(
            GAMES.c.game_id,
            person_of(RESULTS.c.player_id),
            func.coalesce(PEOPLE.c.name, RESULTS.c.name),
            RESULTS.c.rank,
            GAME_PLAYERS.c.seat,
            RESULTS.c.player_id,
        )
        .join(RESULTS, and_(RESULTS.c.game_id == GAMES.c.game_id, RESULTS.c.undone.is_(False)))
        .join(
            GAME_PLAYERS,
            and_(GAME_PLAYERS.c.game_id == GAMES.c.game_id, GAME_PLAYERS.c.player_id == RESULTS.c.player_id),
        )
        .outerjoin(PERSON_SEATS, seat_of_person(RESULTS.c.player_id))
        .outerjoin(PEOPLE, named_person(RESULTS.c.player_id))
        .where(finished(ruleset, scope))
        .order_by(GAMES.c.ended_position, GAMES.c.game_id, RESULTS.c.rank, RESULTS.c.player_id)
    )
    places = opening_places(connection, ruleset, scope)
    seats = [
        Seated(game_id, person, name, rank, seat, places.get((game_id, seat_id)), seat_id)
        for game_id, person, name, rank, seat, seat_id in connection.execute(query)
    ]
    return [each_person_once(game) for _, game in groupby(seats, key=lambda seated: seated.game_id)]


def each_person_once(seats: Iterable[Seated]) -> Game:
    """A game's seats in their order, each person's first only (its better place)."""
    kept: dict[str, Seated] = {}
    for seated in seats:
        kept.setdefault(seated.player_id, seated)
    return tuple(kept.values())


def in_place_order(games: Sequence[Game]) -> list[Game]:
    """Each game's seats by place, players sharing a place by their ids as Python compares them: whatever order
    the games came in (a database's collation orders text its own way), the statistics see the same."""
    return [tuple(sorted(game, key=lambda seated: (seated.rank, seated.player_id))) for game in games]


def opening_places(connection: Connection, ruleset: str, scope: Scope) -> dict[tuple[str, str], int]:
    """Each player's place in the order of play each finished game opened with (`read_turn_order`'s first rows
    that stand), by game and player. (Read apart, and the first order picked by a window, so that no database
    plans a join against an aggregate row by row.)"""
    numbered = (
        select(
            TURN_ORDER.c.game_id,
            TURN_ORDER.c.player_id,
            TURN_ORDER.c.place,
            func.rank().over(partition_by=TURN_ORDER.c.game_id, order_by=TURN_ORDER.c.event).label("nth"),
        )
        .where(
            TURN_ORDER.c.undone.is_(False),
            TURN_ORDER.c.game_id.in_(select(GAMES.c.game_id).where(finished(ruleset, scope))),
        )
        .subquery()
    )
    query = select(numbered.c.game_id, numbered.c.player_id, numbered.c.place).where(numbered.c.nth == 1)
    return {(game_id, player): place for game_id, player, place in connection.execute(query)}


def incremental(
    games: Iterable[Game], each: Callable[[Game, list[PlackettLuceRating]], None] | None = None
) -> dict[str, PlackettLuceRating]:
    """The OpenSkill ratings game by game, as `read_ratings` makes them (the same games give the same ratings);
    `each(game, ratings before it)` is called before each game is rated."""
    current: dict[str, PlackettLuceRating] = {}
    for number, game in enumerate(games, start=1):
        if each is not None:
            each(game, [current.get(seated.player_id) or MODEL.rating() for seated in game])
        places = [Placing("", s.game_id, 0, s.player_id, s.name, s.rank) for s in game]
        for _ in rate_game("", game[0].game_id, number, places, current):
            pass
    return current


def outcome(game: Game) -> list[float]:
    """Each seat's share of the win: 1 for a sole winner, 1/k for each of k sharing the first place."""
    best = min(seated.rank for seated in game)
    winners = sum(1 for seated in game if seated.rank == best)
    return [1 / winners if seated.rank == best else 0.0 for seated in game]


def calibration(games: Sequence[Game]) -> Row:
    """Each game's win chances as the incremental ratings predicted them before it (OpenSkill's `predict_win`)
    against who won: the log loss and Brier score of all games and of the later half, beside those of a prediction
    without skill (each of n players 1/n), and the reliability curve: the predictions in tenths, each with the
    share of them that won and its Wilson 95% interval."""
    games = in_place_order(games)
    predicted: list[tuple[float, float]] = []
    scores: list[tuple[float, float, float, float]] = []

    def judge(game: Game, before: list[PlackettLuceRating]) -> None:
        if len(game) < 2:
            return
        chances = MODEL.predict_win([[rating] for rating in before])
        won = outcome(game)
        predicted.extend(zip(chances, won, strict=True))
        even = 1 / len(game)
        scores.append(
            (
                -sum(w * math.log(max(p, SMALLEST_CHANCE)) for p, w in zip(chances, won, strict=True)),
                math.log(len(game)),
                sum((p - w) ** 2 for p, w in zip(chances, won, strict=True)),
                sum((even - w) ** 2 for w in won),
            )
        )

    incremental(games, judge)
    return {
        "games": len(scores),
        "all": _scores(scores),
        "later_half": _scores(scores[len(scores) // 2 :]),
        "bins": _reliability(predicted),
    }


def _scores(scores: Sequence[tuple[float, float, float, float]]) -> Row:
    count = len(scores)
    mean = [sum(values) / count if count else None for values in zip(*scores, strict=True)] or [None] * 4
    names = ("log_loss", "baseline_log_loss", "brier", "baseline_brier")
    return {"games": count, **dict(zip(names, mean, strict=True))}


def _reliability(predicted: Sequence[tuple[float, float]]) -> list[Row]:
    bins: dict[int, list[tuple[float, float]]] = {}
    for chance, won in predicted:
        bins.setdefault(min(int(chance * BINS), BINS - 1), []).append((chance, won))
    rows = []
    for index, found in sorted(bins.items()):
        wins = sum(won for _, won in found)
        low, high = wilson(round(wins), len(found))
        rows.append(
            {
                "low": index / BINS,
                "high": (index + 1) / BINS,
                "predictions": len(found),
                "mean_predicted": sum(chance for chance, _ in found) / len(found),
                "observed": wins / len(found),
                "observed_low": low,
                "observed_high": high,
            }
        )
    return rows


def canonical(games: Iterable[Game]) -> list[Game]:
    """The games in an order of their own results (players, places, seats), whatever order or ids they came with:
    a fit then adds its numbers in the same order, to the last bit, for the same games."""
    return sorted(games, key=lambda game: tuple([v for s in game for v in (s.player_id, s.rank, s.seat, s.place or 0)]))


def players_of(games: Sequence[Game]) -> dict[str, int]:
    """Each player's number, in the order of their ids, so that the order of the games changes nothing: the
    MOST_FITTED players with the most games (ties by id) each have a strength of their own, and every other player
    shares the one numbered after them. Anyone may record games among new players: this bounds the answer's rows."""
    counts = Counter(s.player_id for game in games for s in game)
    own = sorted(sorted(counts, key=lambda player: (-counts[player], player))[:MOST_FITTED])
    number = {player: index for index, player in enumerate(own)}
    return {player: number.get(player, len(own)) for player in sorted(counts)}


def strengths_in(players: dict[str, int]) -> int:
    """How many strengths a fit of these players has (those of their own, and the one the others share)."""
    return max(players.values(), default=-1) + 1


def own_strength(players: dict[str, int], player: str) -> bool:
    return players[player] < MOST_FITTED


def seat_advantage(games: Sequence[Game], by: str = "seat") -> Row:
    """Plackett-Luce with each player's strength and the effect of each seat (`by` "seat") or place in the opening
    order (`by` "place") fitted together, the first seat's effect 0 at each number of players: per number of players
    and seat, the effect and its 95% interval, the chance the seat wins at a table of equally strong players with its
    95% interval, and the raw win rate for comparison. Games that set no order count for nothing by place."""
    games = in_place_order(games)
    kept = canonical(game for game in games if len(game) > 1 and all(at(s, by) is not None for s in game))
    players = players_of(kept)
    covariates = sorted({(len(game), at(s, by)) for game in kept for s in game if at(s, by) != 1})
    number = {key: index for index, key in enumerate(covariates)}
    seats_covariates = (number.get((len(game), at(s, by)), -1) for game in kept for s in game)
    fitted = fit_tables(tables_of(kept, players, seats_covariates), strengths_in(players), len(covariates))
    counted: Counter[tuple[int, int]] = Counter()
    won: Counter[tuple[int, int]] = Counter()
    for game in kept:
        best = min(s.rank for s in game)
        for s in game:
            key = (len(game), int(at(s, by) or 0))
            counted[key] += 1
            won[key] += s.rank == best
    rows = []
    for size in sorted({size for size, _ in counted}):
        rows.extend(_seat_rows(fitted, size, number, counted, won))
    return {"by": by, "games": len(kept), "players": len(players), "rows": rows}


def tables_of(games: Sequence[Game], players: dict[str, int], covariates: Iterable[int] | None = None) -> Tables:
    """The games as a fit reads them: each seat's player's number (`players_of`), its covariate's number (the
    reference's -1, every seat's without `covariates`) and its place."""
    seats = [seated for game in games for seated in game]
    count = len(seats)
    given = np.full(count, -1, dtype=np.int64) if covariates is None else np.fromiter(covariates, np.int64, count)
    return Tables(
        np.fromiter((len(game) for game in games), np.int64, len(games)),
        np.fromiter((players[seated.player_id] for seated in seats), np.int64, count),
        given,
        np.fromiter((seated.rank for seated in seats), np.int64, count),
    )


def fit_tables(tables: Tables, players: int, covariates: int = 0) -> Fit:
    return fit_choices(table_choices(tables, players, covariates), players)


def at(seated: Seated, by: str) -> int | None:
    return seated.seat if by == "seat" else seated.place


def _seat_rows(
    fitted: Fit,
    size: int,
    number: dict[tuple[int, int | None], int],
    counted: Counter[tuple[int, int]],
    won: Counter[tuple[int, int]],
) -> list[Row]:
    """The rows of one number of players: effects, and the chances of winning among equals (softmax of the effects)
    with intervals by the delta method."""
    index = [number.get((size, place)) for place in range(1, size + 1)]
    effects = np.array([0.0 if i is None else fitted.effects[i] for i in index])
    chances = np.exp(effects - effects.max())
    chances /= chances.sum()
    fitted_at = [i for i in index if i is not None]
    covariance = np.array([[fitted.effect_covariance[i][j] for j in fitted_at] for i in fitted_at])
    rows = []
    for place, covariate in enumerate(index, start=1):
        gradient = np.array(
            [
                chances[place - 1] * ((place == other) - chances[other - 1])
                for other, i in enumerate(index, 1)
                if i is not None
            ]
        )
        spread = Z_95 * math.sqrt(max(float(gradient @ covariance @ gradient), 0.0)) if fitted_at else 0.0
        low, high = fitted.effect_interval(covariate) if covariate is not None else (0.0, 0.0)
        games = counted[(size, place)]
        rows.append(
            {
                "players": size,
                "at": place,
                "games": games,
                "effect": float(effects[place - 1]),
                "low": low,
                "high": high,
                "win_chance": float(chances[place - 1]),
                "win_chance_low": max(0.0, float(chances[place - 1]) - spread),
                "win_chance_high": min(1.0, float(chances[place - 1]) + spread),
                "win_rate": won[(size, place)] / games if games else None,
            }
        )
    return rows


def batch_ratings(games: Sequence[Game]) -> list[Row]:
    """Each player's strength fitted to the whole history at once (Plackett-Luce, no seat effect; the games'
    order changes nothing), as an OpenSkill mu and sigma (`SCALE`), beside the incremental rating the same games
    give and the difference; the highest batch ordinal (mu - 3 sigma) first."""
    games = in_place_order(games)
    ordered = canonical(games)
    players = players_of(ordered)
    fitted = fit_tables(tables_of(ordered, players), strengths_in(players))
    now = incremental(games)
    names = {s.player_id: s.name for game in games for s in game}
    latest_seat_ids = {s.player_id: s.seat_id or s.player_id for game in games for s in game}
    counts = Counter(s.player_id for game in games for s in game)
    rows: list[Row] = []
    for player, index in players.items():
        if not own_strength(players, player):
            continue
        low, high = fitted.interval(index)
        mu, sigma = MODEL.mu + SCALE * fitted.strengths[index], SCALE * fitted.strength_errors[index]
        rating = now.get(player) or MODEL.rating()
        rows.append(
            {
                "person_id": player,
                "player_id": latest_seat_ids[player],
                "name": names[player],
                "games": counts[player],
                "strength": fitted.strengths[index],
                "low": low,
                "high": high,
                "mu": mu,
                "sigma": sigma,
                "ordinal": mu - 3 * sigma,
                "incremental_mu": rating.mu,
                "incremental_sigma": rating.sigma,
                "incremental_ordinal": rating.ordinal(),
                "difference": mu - rating.mu,
            }
        )
    rows.sort(key=lambda row: (-row["ordinal"], row["name"], row["player_id"]))
    by_incremental = sorted(rows, key=lambda row: (-row["incremental_ordinal"], row["name"], row["player_id"]))
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    for rank, row in enumerate(by_incremental, start=1):
        row["incremental_rank"] = rank
    return rows


@dataclass(frozen=True)
class BotGap:
    """The strength of the sensible bot less the random one's, fitted to a seeded set of self-played games at
    mixed tables, with its 95% interval."""

    games: int
    gap: float
    low: float
    high: float


@cache
def bot_gap(ruleset: str) -> BotGap | None:
    """The gap between the ruleset's bots (None for a ruleset without a sensible and a random bot): the same games,
    and so the same gap, on every call. The bots are one player, the sensible bot's seats with an effect: the gap."""
    found = self_play(get_ruleset(ruleset))
    if found is None or not {STRONG, WEAK} <= set(found.bots):
        return None
    counts = [count for count in found.player_counts if 2 <= count <= MOST_BOT_SEATS]
    if not counts:
        return None
    seats: list[list[Seat]] = []
    for seed in range(BOT_GAMES):
        size = counts[seed % len(counts)]
        bots = [STRONG if (seat + seed) % 2 == 0 else WEAK for seat in range(size)]
        played = play_game(size, seed, STRONG, ruleset, None, bots)
        kinds = dict(zip(played.header.players, bots, strict=True))
        seats.append([Seat(0, 0 if kinds[s.player] == STRONG else None, s.rank) for s in played.outcome.standings])
    fitted = fit(seats, 1, 1)
    low, high = fitted.effect_interval(0)
    return BotGap(BOT_GAMES, fitted.effects[0], low, high)


def skill(games: Sequence[Game], gap: BotGap | None, min_games: int = 5) -> Row:
    """Skill against luck, after Duersch, Lambrecht and Oechssler (2020): the wider the players' fitted strengths
    are spread, the more skill decides. The spread (standard deviation) of the strengths of players with at least
    `min_games` games, against the same games with results drawn at random (chance) and with a share of them decided
    by the bots' strengths (half the players, in the order of their ids, taken as the sensible bot and half as the
    random one); the skill share is the share of bots' games at which the benchmark is as spread as the real games."""
    games = in_place_order(games)
    ordered = canonical(games)
    players = players_of(ordered)
    counts = Counter(s.player_id for game in ordered for s in game)
    counted = [
        players[player]
        for player, count in sorted(counts.items())
        if count >= min_games and own_strength(players, player)
    ]
    tables = [[Seat(players[s.player_id], None, s.rank) for s in game] for game in ordered if len(game) > 1]
    answer: Row = {
        "games": len(tables),
        "players": len(players),
        "counted_players": len(counted),
        "min_games": min_games,
        "bots": None if gap is None else {"games": gap.games, "gap": gap.gap, "low": gap.low, "high": gap.high},
        "dispersion": None,
        "benchmarks": [],
        "skill_share": None,
    }
    if len(counted) < 2:
        return answer
    size = strengths_in(players)
    answer["dispersion"] = spread(fit(tables, size), counted)
    by_size: dict[int, list[list[int]]] = {}
    for table in tables:
        by_size.setdefault(len(table), []).append([seat.player for seat in table])
    seated = [np.array(rows, dtype=np.int64) for _, rows in sorted(by_size.items())]
    generator = np.random.default_rng(SEED)
    benchmarks = []
    for share in SHARES if gap is not None else SHARES[:1]:
        found = []
        for _ in range(DRAWS):
            orders = [drawn(matrix, share, 0.0 if gap is None else gap.gap, generator) for matrix in seated]
            found.append(spread(fit_choices(ordered_choices(orders, size), size), counted))
        benchmarks.append({"bots_share": share, "dispersion": sum(found) / len(found)})
    answer["benchmarks"] = benchmarks
    if gap is not None:
        answer["skill_share"] = share_at(answer["dispersion"], benchmarks)
    return answer


def spread(fitted: Fit, counted: Sequence[int]) -> float:
    values = np.array([fitted.strengths[index] for index in counted])
    return float(values.std())


def drawn(seated: Ints, share: float, gap: float, generator: np.random.Generator) -> Ints:
    """The same tables (a row a game, its players) with new results, each table's players from first to last: a
    `share` of the games drawn from the bots' strengths (the players of even number the sensible bot, the others
    the random one), the rest at random. (A Plackett-Luce order is the order of the utilities each perturbed by a
    standard Gumbel variable.)"""
    games, _ = seated.shape
    decided = np.less(generator.random((games, 1)), share)
    utilities = np.where(decided & np.equal(seated % 2, 0), gap, 0.0) + generator.gumbel(size=seated.shape)
    order = np.argsort(-utilities, axis=1, kind="stable")
    ordered: Ints = np.take_along_axis(seated, order, axis=1)
    return ordered


def share_at(dispersion: float, benchmarks: Sequence[Row]) -> float:
    """Where the dispersion falls on the benchmarks' curve, by linear interpolation, within 0 and 1."""
    points = [(float(row["bots_share"]), float(row["dispersion"])) for row in benchmarks]
    if dispersion <= points[0][1]:
        return 0.0
    if dispersion >= points[-1][1]:
        return 1.0
    for (share, low), (next_share, high) in pairwise(points):
        if low <= dispersion <= high and high > low:
            return share + (next_share - share) * (dispersion - low) / (high - low)
    return min(points, key=lambda point: abs(point[1] - dispersion))[0]
