"""Plackett-Luce strengths fitted to a whole set of results at once: each player's strength, and the effect of a
covariate of each seat (its seat at the table, its place in the order of play), by maximum a posteriori with a
normal prior, by Newton's method; intervals from the curvature at the optimum. Games as plain values, no SQL.

A game's finishing order is read as a sequence of choices: the first place chosen among everyone, the second among
the rest, and so on, each with the chance exp(u) / sum(exp(u)) over those not yet placed, where a seat's u is its
player's strength plus the effect of its covariate. Players sharing a place are each chosen from the same rest
(Breslow's way with ties); the players of a last shared place tell nothing of an order and count for nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

PRIOR_SD = math.sqrt(2)
"""The prior on each strength and each effect: normal, centred on 0, with this standard deviation. It is the
OpenSkill ratings' own starting uncertainty (sigma 25/3) on this scale (`SCALE`): a player who always wins keeps a
finite strength, and the strengths are pinned without fixing one player's."""
SCALE = math.sqrt(2) * 25 / 6
"""One unit of strength as OpenSkill's mu: its beta (25/6) times the square root of two players, the scale of a
two-player game between settled ratings."""
Z_95 = 1.959963984540054
MOST_STEPS = 100


@dataclass(frozen=True)
class Seat:
    """One seat of one game: its player's number, its covariate's number (None for the reference, whose effect is
    0 by definition) and its place (1 first; equal places shared)."""

    player: int
    covariate: int | None
    rank: int


@dataclass(frozen=True)
class Fit:
    strengths: tuple[float, ...]
    strength_errors: tuple[float, ...]
    effects: tuple[float, ...]
    effect_covariance: tuple[tuple[float, ...], ...]
    log_likelihood: float
    steps: int

    def interval(self, player: int) -> tuple[float, float]:
        """The strength's 95% interval."""
        spread = Z_95 * self.strength_errors[player]
        return self.strengths[player] - spread, self.strengths[player] + spread

    def effect_interval(self, covariate: int) -> tuple[float, float]:
        spread = Z_95 * math.sqrt(self.effect_covariance[covariate][covariate])
        return self.effects[covariate] - spread, self.effects[covariate] + spread


@dataclass(frozen=True)
class Choices:
    """The choices a set of games makes, as arrays: a row for each seat among those a place is chosen from, rows
    grouped by choice (`starts`); each row's player and covariate columns (-1 for the reference), and whether it
    was chosen; each choice's weight (how many seats were chosen from it). `cells` and `pair` say, for every two
    rows of one choice, which cells of the information matrix their product adds to."""

    size: int
    players: Ints
    covariates: Ints
    chosen: Floats
    choice: Ints
    starts: Ints
    weight: Floats
    first: Ints
    second: Ints
    cells: Ints
    pair: Ints


def choices(games: Sequence[Sequence[Seat]], players: int, covariates: int = 0) -> Choices:
    """The choices of games whose places may be shared."""
    rows_player: list[int] = []
    rows_covariate: list[int] = []
    rows_chosen: list[float] = []
    starts: list[int] = []
    weights: list[float] = []
    for game in games:
        ordered = sorted(game, key=lambda seat: seat.rank)
        left = 0
        while left < len(ordered):
            place = ordered[left].rank
            shared = sum(1 for seat in ordered[left:] if seat.rank == place)
            if shared == len(ordered) - left:
                break  # the rest share a place: no order among them
            starts.append(len(rows_player))
            weights.append(float(shared))
            for index, seat in enumerate(ordered[left:]):
                rows_player.append(seat.player)
                rows_covariate.append(-1 if seat.covariate is None else players + seat.covariate)
                rows_chosen.append(1.0 if index < shared else 0.0)
            left += shared
    return _assembled(
        players + covariates,
        np.array(rows_player, dtype=np.int64),
        np.array(rows_covariate, dtype=np.int64),
        np.array(rows_chosen, dtype=np.float64),
        np.array(starts, dtype=np.int64),
        np.array(weights, dtype=np.float64),
    )


def ordered_choices(orders: Sequence[Ints], players: int) -> Choices:
    """The choices of games without shared places and without covariates: each matrix a row a game of one size,
    its players from first to last."""
    player_rows: list[Ints] = []
    chosen_rows: list[Floats] = []
    widths: list[Ints] = []
    for order in orders:
        games, size = order.shape
        for stage in range(size - 1):
            rows = order[:, stage:]
            picked = np.zeros(rows.shape)
            picked[:, 0] = 1.0
            player_rows.append(rows.reshape(-1))
            chosen_rows.append(picked.reshape(-1))
            widths.append(np.full(games, size - stage, dtype=np.int64))
    if not widths:
        return choices([], players)
    width = np.concatenate(widths)
    starts: Ints = (np.cumsum(width) - width).astype(np.int64)
    rows = np.concatenate(player_rows).astype(np.int64)
    return _assembled(
        players, rows, np.full(len(rows), -1, dtype=np.int64), np.concatenate(chosen_rows), starts, np.ones(len(width))
    )


def _assembled(size: int, players: Ints, covariates: Ints, chosen: Floats, starts: Ints, weight: Floats) -> Choices:
    widths: Ints = np.diff(np.append(starts, len(players))).astype(np.int64)
    choice: Ints = np.repeat(np.arange(len(starts), dtype=np.int64), widths)
    counts: Ints = widths[choice]
    first: Ints = np.repeat(np.arange(len(players), dtype=np.int64), counts)
    before: Ints = np.cumsum(counts) - counts
    second: Ints = np.repeat(starts[choice], counts) + np.arange(len(first), dtype=np.int64) - np.repeat(before, counts)
    cells, pair = [], []
    columns = (players, covariates) if bool(np.any(covariates >= 0)) else (players,)
    for rows in columns:
        for cols in columns:
            a, b = rows[first], cols[second]
            kept = np.flatnonzero((a >= 0) & (b >= 0))
            cells.append(a[kept] * size + b[kept])
            pair.append(kept)
    return Choices(
        size,
        players,
        covariates,
        chosen,
        choice,
        starts,
        weight,
        first,
        second,
        np.concatenate(cells),
        np.concatenate(pair),
    )


def fit(games: Sequence[Sequence[Seat]], players: int, covariates: int = 0, prior_sd: float = PRIOR_SD) -> Fit:
    """The strengths of `players` players and the effects of `covariates` covariates that make the games' results
    most likely under the prior; the same games in any order give the same fit."""
    return fit_choices(choices(games, players, covariates), players, prior_sd)


def fit_choices(made: Choices, players: int, prior_sd: float = PRIOR_SD) -> Fit:
    size = made.size
    parameters = np.zeros(size)
    objective, gradient, hessian = _derivatives(made, parameters, prior_sd)
    steps = 0
    for steps in range(1, MOST_STEPS + 1):  # noqa: B007 (the count is reported)
        step = np.linalg.solve(hessian, gradient)
        length = 1.0
        while True:
            trial = parameters + length * step
            value = _objective(made, trial, prior_sd)
            if value >= objective - 1e-12 or length < 1e-6:
                break
            length /= 2
        parameters = trial
        moved = float(np.max(np.abs(length * step))) if size else 0.0
        objective, gradient, hessian = _derivatives(made, parameters, prior_sd)
        if moved < 1e-10:
            break
    covariance = np.linalg.inv(hessian) if size else np.zeros((0, 0))
    errors = np.sqrt(np.diag(covariance))
    likelihood = objective + float(parameters @ parameters) / (2 * prior_sd**2)
    return Fit(
        tuple(parameters[:players].tolist()),
        tuple(errors[:players].tolist()),
        tuple(parameters[players:].tolist()),
        tuple(tuple(row) for row in covariance[players:, players:].tolist()),
        likelihood,
        steps,
    )


def _utilities(made: Choices, parameters: Floats) -> Floats:
    effects = np.where(made.covariates >= 0, parameters[np.maximum(made.covariates, 0)], 0.0)
    utilities: Floats = parameters[made.players] + effects
    return utilities


def _log_sums(made: Choices, utilities: Floats) -> Floats:
    """Each choice's log of the sum of exp(u) over its rows."""
    if not len(made.starts):
        return np.zeros(0)
    top = np.maximum.reduceat(utilities, made.starts)
    totals = np.add.reduceat(np.exp(utilities - top[made.choice]), made.starts)
    sums: Floats = top + np.log(totals)
    return sums


def _objective(made: Choices, parameters: Floats, prior_sd: float) -> float:
    utilities = _utilities(made, parameters)
    sums = _log_sums(made, utilities)
    likelihood = float(made.chosen @ utilities - made.weight @ sums)
    return likelihood - float(parameters @ parameters) / (2 * prior_sd**2)


def _derivatives(made: Choices, parameters: Floats, prior_sd: float) -> tuple[float, Floats, Floats]:
    """The log posterior, its gradient, and the negative of its Hessian (the observed information)."""
    size = made.size
    utilities = _utilities(made, parameters)
    sums = _log_sums(made, utilities)
    chances = np.exp(utilities - sums[made.choice])
    expected = made.weight[made.choice] * chances
    residual = made.chosen - expected
    has = made.covariates >= 0
    gradient: Floats = np.bincount(made.players, residual, size).astype(np.float64)
    gradient += np.bincount(made.covariates[has], residual[has], size) - parameters / prior_sd**2
    first, second = made.first, made.second
    together = -made.weight[made.choice[first]] * chances[first] * chances[second]
    together += np.where(first == second, expected[first], 0.0)
    information = np.bincount(made.cells, together[made.pair], size * size)
    hessian: Floats = information.reshape(size, size) + np.eye(size) / prior_sd**2
    objective = float(made.chosen @ utilities - made.weight @ sums) - float(parameters @ parameters) / (2 * prior_sd**2)
    return objective, gradient, hessian


def draw_places(utilities: Sequence[float], generator: np.random.Generator) -> list[int]:
    """A finishing order drawn from the Plackett-Luce model with these utilities: each seat's place (1 first).
    (The order of utilities each perturbed by a standard Gumbel variable is such a draw.)"""
    noisy = np.asarray(utilities, dtype=np.float64) + generator.gumbel(size=len(utilities))
    order = np.argsort(-noisy, kind="stable")
    places = np.empty(len(utilities), dtype=np.int64)
    places[order] = np.arange(1, len(utilities) + 1)
    return [int(place) for place in places]
