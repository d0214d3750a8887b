"""The statistics that weigh the players' strengths, on seeded sets whose truth is known: self-played games between a
sensible and a random bot, a player who always wins, seats with and without a planted advantage, results drawn at
random and results that skill decides. Every set is drawn from a fixed seed, so each check is the same on every
run."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import pytest

from evo_ledger.app.selfplay import play_game
from projections import strengths
from projections.luce import Seat, draw_places, fit
from projections.strengths import BotGap, Game, Seated

BATCH = ("player_id", "name", "games", "strength", "low", "high", "mu", "sigma", "ordinal", "rank")
MIXED = (["sensible", "random"], ["random", "sensible"], ["sensible", "random", "random"])


def game(number: int, results: Sequence[tuple[str, int]], places: Sequence[int] | None = None) -> Game:
    """A finished game: each seat's player and rank, in seat order (and its place in the opening order)."""
    return tuple(
        Seated(f"game-{number:05d}", player, player, rank, seat, None if places is None else places[seat - 1])
        for seat, (player, rank) in enumerate(results, start=1)
    )


def self_played(games: int) -> list[Game]:
    """evo2 played by its bots at mixed tables of two and three, a seed each."""
    found = []
    for seed in range(games):
        bots = MIXED[seed % len(MIXED)]
        played = play_game(len(bots), seed, "sensible", "evo2", None, bots)
        ranks = {standing.player: standing.rank for standing in played.outcome.standings}
        found.append(game(seed, [(player, ranks[player]) for player in played.header.players]))
    return found


def simulated(
    games: int, seed: int, seat_effects: Sequence[float], players: int = 9, spread: float = 0.6
) -> list[Game]:
    """Tables of len(seat_effects) drawn from nine players of strengths spread so much, results drawn from
    Plackett-Luce with the seats' effects added."""
    generator = np.random.default_rng(seed)
    skill = generator.normal(0, spread, players)
    found = []
    for number in range(games):
        seated = generator.choice(players, len(seat_effects), replace=False)
        ranks = draw_places([skill[p] + effect for p, effect in zip(seated, seat_effects, strict=True)], generator)
        found.append(game(number, [(f"p{p}", rank) for p, rank in zip(seated, ranks, strict=True)]))
    return found


def test_the_sensible_bot_comes_out_stronger_than_the_random_one_with_its_interval_clear_of_theirs() -> None:
    rows = {row["name"]: row for row in strengths.batch_ratings(self_played(24))}
    sensible = rows["sensible"]
    for random_bot in ("random", "random_2"):
        assert sensible["strength"] > rows[random_bot]["strength"]
        assert sensible["low"] > rows[random_bot]["strength"] and sensible["strength"] > rows[random_bot]["high"]
    assert sensible["rank"] == 1 and sensible["incremental_rank"] == 1


def test_the_bots_gap_is_measured_from_their_own_seeded_games_and_is_clear_of_zero() -> None:
    gap = strengths.bot_gap("evo2")
    assert gap is not None and gap.games == strengths.BOT_GAMES
    assert 0 < gap.low < gap.gap < gap.high
    assert strengths.bot_gap("evo2") is gap  # played once a process


def test_where_one_player_always_wins_the_later_half_is_predicted_better_than_without_skill() -> None:
    games = [game(n, [("ace", 1), ("bea", 2 + n % 2), ("cid", 3 - n % 2)]) for n in range(30)]
    found = strengths.calibration(games)
    later = found["later_half"]
    assert found["games"] == 30 and later["games"] == 15
    assert later["log_loss"] < later["baseline_log_loss"] == pytest.approx(np.log(3))
    assert later["brier"] < later["baseline_brier"] == pytest.approx(2 / 3)
    assert found["all"]["log_loss"] > later["log_loss"]  # the first games are predicted from no history
    assert sum(b["predictions"] for b in found["bins"]) == 90
    assert found["bins"][-1]["observed"] == 1.0  # the surest predictions are ace's, who always won


def test_results_drawn_at_random_are_predicted_about_as_well_as_without_skill() -> None:
    draw = random.Random(4)
    games = [game(n, list(zip(("ann", "ben", "cat"), draw.sample((1, 2, 3), 3), strict=True))) for n in range(60)]
    later = strengths.calibration(games)["later_half"]
    assert later["log_loss"] == pytest.approx(later["baseline_log_loss"], rel=0.1)


def test_a_shared_first_place_is_half_a_win_each() -> None:
    assert strengths.outcome(game(1, [("ann", 1), ("ben", 1), ("cat", 3)])) == [0.5, 0.5, 0.0]


def test_the_seat_model_finds_an_advantage_planted_in_the_first_seat() -> None:
    found = strengths.seat_advantage(simulated(400, seed=1, seat_effects=(0.8, 0.0, 0.0)))
    rows = {row["at"]: row for row in found["rows"]}
    assert rows[1]["effect"] == 0 and found["games"] == 400 and found["players"] == 9
    for seat in (2, 3):
        assert rows[seat]["high"] < 0 and rows[seat]["low"] < -0.8 < rows[seat]["high"]
    assert rows[1]["win_chance_low"] > 1 / 3


def test_the_seat_model_finds_no_advantage_where_none_was_planted() -> None:
    found = strengths.seat_advantage(simulated(400, seed=2, seat_effects=(0.0, 0.0, 0.0)))
    for row in found["rows"]:
        assert row["low"] <= 0 <= row["high"]
        assert row["win_chance_low"] < 1 / 3 < row["win_chance_high"]


def test_an_advantage_by_place_in_the_opening_order_is_told_apart_from_the_seats() -> None:
    draw = random.Random(5)
    games = []
    for number in range(300):
        places = draw.sample((1, 2, 3), 3)
        ranks = draw_places([0.9 if place == 1 else 0.0 for place in places], np.random.default_rng(number))
        games.append(game(number, list(zip(("ann", "ben", "cat"), ranks, strict=True)), places))
    by_place = {row["at"]: row for row in strengths.seat_advantage(games, "place")["rows"]}
    by_seat = {row["at"]: row for row in strengths.seat_advantage(games, "seat")["rows"]}
    assert by_place[2]["high"] < 0 and by_place[3]["high"] < 0
    assert all(row["low"] <= 0 <= row["high"] for row in by_seat.values())


def test_a_game_without_an_opening_order_counts_for_nothing_by_place() -> None:
    games = [game(1, [("ann", 1), ("ben", 2)]), game(2, [("ann", 2), ("ben", 1)], [2, 1])]
    assert strengths.seat_advantage(games, "place")["games"] == 1


def test_the_batch_ratings_are_the_same_on_any_order_of_the_same_games() -> None:
    games = simulated(120, seed=3, seat_effects=(0.0, 0.0, 0.0, 0.0))
    first = strengths.batch_ratings(games)
    for seed in range(3):
        shuffled = list(games)
        random.Random(seed).shuffle(shuffled)
        again = strengths.batch_ratings(shuffled)
        assert [[row[key] for key in BATCH] for row in again] == [[row[key] for key in BATCH] for row in first]
    assert [row["rank"] for row in first] == list(range(1, 10))


def test_a_player_who_always_wins_keeps_a_finite_strength() -> None:
    fitted = fit([[Seat(0, None, 1), Seat(1, None, 2)] for _ in range(50)], 2)
    assert 0 < fitted.strengths[0] < 10 and fitted.strengths[1] == pytest.approx(-fitted.strengths[0])
    assert fitted.interval(0)[0] > fitted.strengths[1]


def test_results_drawn_at_random_show_little_skill_and_results_skill_decides_show_much() -> None:
    gap = BotGap(20, 3.0, 2.0, 4.0)
    luck = strengths.skill(simulated(300, seed=6, seat_effects=(0, 0, 0), players=6, spread=0), gap)
    generator = np.random.default_rng(7)
    decided = []
    for number in range(300):
        seated = generator.choice(6, 3, replace=False)
        ranks = draw_places([2.0 * (p % 2 == 0) for p in seated], generator)
        decided.append(game(number, [(f"p{p}", rank) for p, rank in zip(seated, ranks, strict=True)]))
    skill = strengths.skill(decided, gap)
    assert [row["bots_share"] for row in skill["benchmarks"]] == list(strengths.SHARES)
    dispersions = [row["dispersion"] for row in skill["benchmarks"]]
    assert dispersions == sorted(dispersions)
    assert luck["skill_share"] < 0.5 < skill["skill_share"]
    assert skill["dispersion"] > luck["dispersion"]


def test_skill_needs_two_players_with_enough_games_and_without_bots_is_measured_against_chance_alone() -> None:
    few = [game(n, [("ann", 1), ("ben", 2)]) for n in range(3)]
    assert strengths.skill(few, None)["dispersion"] is None
    found = strengths.skill(few, None, min_games=1)
    assert found["dispersion"] is not None and found["skill_share"] is None
    assert [row["bots_share"] for row in found["benchmarks"]] == [0.0]


def test_beyond_the_most_fitted_players_those_with_fewest_games_share_one_strength(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Anyone may record games among new players: a fit has at most MOST_FITTED strengths of their own, for the
    players with the most games, and one the others share; only the players with their own are rated and counted."""
    monkeypatch.setattr(strengths, "MOST_FITTED", 3)
    regulars = [game(number, [("ann", 1), ("ben", 2), ("cat", 3)]) for number in range(6)]
    guests = [game(100 + number, [(f"guest{number}", 1), ("ann", 2)]) for number in range(4)]
    season = regulars + guests
    players = strengths.players_of(season)
    assert {player for player, number in players.items() if number < 3} == {"ann", "ben", "cat"}
    assert {players[f"guest{number}"] for number in range(4)} == {3}
    assert [row["player_id"] for row in strengths.batch_ratings(season)] == ["ann", "ben", "cat"]
    assert strengths.skill(season, None, 1)["counted_players"] == 3
    assert strengths.seat_advantage(season)["games"] == len(season)
