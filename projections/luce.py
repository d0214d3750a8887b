"""Plackett-Luce strengths fitted to a whole set of results at once: each player's strength, and the effect of a
covariate of each seat (its seat at the table, its place in the order of play), by maximum a posteriori with a
normal prior, by Newton's method; intervals from the curvature at the optimum. Games as plain values, no SQL.

A game's finishing order is read as a sequence of choices: the first place chosen among everyone, the second among
the rest, and so on, each with the chance exp(u) / sum(exp(u)) over those not yet placed, where a seat's u is its
player's strength plus the effect of its covariate. Players sharing a place are each chosen from the same rest
(Breslow's way with ties); the players of a last shared place tell nothing of an order and count for nothing.

The information matrix (the curvature) is never held whole for a large fit: each Newton step is solved by
conjugate gradients, which ask only for its product with a vector, made from the choices' rows in one pass, so
that a fit's memory and each step's cost grow with its results, not with the square of its parameters. The
intervals of a fit of at most EXACT_UP_TO parameters come from the inverse of the whole matrix; beyond, the
effects' from their columns of that inverse (conjugate gradients again), and each strength's from the matrix's
diagonal (`_uncertainty`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_array
from scipy.sparse.linalg import LinearOperator, cg

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
SETTLED = 1e-10
"""A fit stops when no parameter moved more than this in a step."""
EXACT_UP_TO = 2_000
"""The most parameters whose whole covariance is computed (a dense matrix of their number squared: 32 MB at 2,000,
and its inverse in about a second on two cores)."""
SOLVED_TO = 1e-6
"""How near conjugate gradients bring a column of the covariance: its residual's norm over the right side's."""


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
    grouped by choice (`starts`, and each row's `choice`); `design`, a sparse matrix of a row per row and a column
    per parameter, 1 at the row's player and at its covariate; whether each row was chosen; each choice's weight
    (how many seats were chosen from it)."""

    size: int
    design: csr_array
    chosen: Floats
    choice: Ints
    starts: Ints
    weight: Floats


@dataclass(frozen=True)
class Tables:
    """Games as arrays, their seats one after another: each game's number of seats, and each seat's player's
    number, its covariate's number (-1 for the reference) and its place (1 first; equal places shared)."""

    sizes: Ints
    players: Ints
    covariates: Ints
    ranks: Ints

    @classmethod
    def of(cls, games: Sequence[Sequence[Seat]]) -> Tables:
        seats = [seat for game in games for seat in game]
        count = len(seats)
        return cls(
            np.fromiter((len(game) for game in games), np.int64, len(games)),
            np.fromiter((seat.player for seat in seats), np.int64, count),
            np.fromiter((-1 if seat.covariate is None else seat.covariate for seat in seats), np.int64, count),
            np.fromiter((seat.rank for seat in seats), np.int64, count),
        )


def choices(games: Sequence[Sequence[Seat]], players: int, covariates: int = 0) -> Choices:
    """The choices of games whose places may be shared."""
    return table_choices(Tables.of(games), players, covariates)


def ordered_choices(orders: Sequence[Ints], players: int) -> Choices:
    """The choices of games without shared places and without covariates: each matrix a row a game of one size,
    its players from first to last."""
    if not orders:
        return choices([], players)
    seated = np.concatenate([order.reshape(-1) for order in orders]).astype(np.int64)
    sizes = np.concatenate([np.full(len(order), order.shape[1], dtype=np.int64) for order in orders])
    ranks = np.concatenate([np.tile(np.arange(1, order.shape[1] + 1, dtype=np.int64), len(order)) for order in orders])
    return table_choices(Tables(sizes, seated, np.full(len(seated), -1, dtype=np.int64), ranks), players)


def table_choices(tables: Tables, players: int, covariates: int = 0) -> Choices:
    """The choices of the games: each game's seats by place (players sharing a place in the order given), a choice
    from each place on that is not the last."""
    game = np.repeat(np.arange(len(tables.sizes), dtype=np.int64), tables.sizes)
    order = np.lexsort((tables.ranks, game))
    game, ranks = game[order], tables.ranks[order]
    end = np.cumsum(tables.sizes)[game]
    first = np.ones(len(ranks), dtype=bool)
    first[1:] = (game[1:] != game[:-1]) | (ranks[1:] != ranks[:-1])
    begins = np.flatnonzero(first)
    shared = np.diff(np.append(begins, len(ranks)))
    kept = shared < end[begins] - begins  # the last place's players share it: no order among them
    starts_at, weight = begins[kept], shared[kept]
    widths = end[starts_at] - starts_at
    offsets: Ints = (np.cumsum(widths) - widths).astype(np.int64)
    within = np.arange(int(widths.sum()), dtype=np.int64) - np.repeat(offsets, widths)
    rows = order[np.repeat(starts_at, widths) + within]
    chosen = (within < np.repeat(weight, widths)).astype(np.float64)
    covariate = tables.covariates[rows]
    columns = np.where(covariate >= 0, players + covariate, -1)
    return _assembled(players + covariates, tables.players[rows], columns, chosen, offsets, weight.astype(np.float64))


def _assembled(size: int, players: Ints, covariates: Ints, chosen: Floats, starts: Ints, weight: Floats) -> Choices:
    count = len(players)
    widths: Ints = np.diff(np.append(starts, count)).astype(np.int64)
    choice: Ints = np.repeat(np.arange(len(starts), dtype=np.int64), widths)
    has = covariates >= 0
    bounds = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(1 + has, out=bounds[1:])
    columns = np.empty(int(bounds[-1]), dtype=np.int64)
    columns[bounds[:-1]] = players
    columns[bounds[:-1][has] + 1] = covariates[has]  # after the player's: a covariate's column is past every player's
    design = csr_array((np.ones(len(columns)), columns, bounds), shape=(count, size))
    return Choices(size, design, chosen, choice, starts, weight)


def fit(games: Sequence[Sequence[Seat]], players: int, covariates: int = 0, prior_sd: float = PRIOR_SD) -> Fit:
    """The strengths of `players` players and the effects of `covariates` covariates that make the games' results
    most likely under the prior; the same games in any order give the same fit."""
    return fit_choices(choices(games, players, covariates), players, prior_sd)


@dataclass(frozen=True)
class _Point:
    """The parameters, and what the choices make of them: the log posterior, its gradient, each row's chance of
    being chosen and its expected count of being chosen (the chance times its choice's weight)."""

    parameters: Floats
    objective: float
    gradient: Floats
    chances: Floats
    expected: Floats


def fit_choices(made: Choices, players: int, prior_sd: float = PRIOR_SD) -> Fit:
    """The fit of the choices' parameters, the first `players` of them strengths and the rest effects."""
    point = _point(made, np.zeros(made.size), prior_sd)
    steps = 0
    for steps in range(1, MOST_STEPS + 1):  # noqa: B007 (the count is reported)
        step = _newton_step(made, point, prior_sd)
        length = 1.0
        while True:
            trial = point.parameters + length * step
            value = _objective(made, trial, prior_sd)
            if value >= point.objective - 1e-12 * (1 + abs(point.objective)) or length < 1e-6:
                break
            length /= 2
        point = _point(made, trial, prior_sd)
        moved = float(np.max(np.abs(length * step))) if made.size else 0.0
        if moved < SETTLED:
            break
    errors, effect_covariance = _uncertainty(made, point, players, prior_sd)
    parameters = point.parameters
    likelihood = point.objective + float(parameters @ parameters) / (2 * prior_sd**2)
    return Fit(
        tuple(parameters[:players].tolist()),
        tuple(errors.tolist()),
        tuple(parameters[players:].tolist()),
        tuple(tuple(row) for row in effect_covariance.tolist()),
        likelihood,
        steps,
    )


def _log_sums(made: Choices, utilities: Floats) -> Floats:
    """Each choice's log of the sum of exp(u) over its rows."""
    if not len(made.starts):
        return np.zeros(0)
    top = np.maximum.reduceat(utilities, made.starts)
    totals = np.add.reduceat(np.exp(utilities - top[made.choice]), made.starts)
    sums: Floats = top + np.log(totals)
    return sums


def _objective(made: Choices, parameters: Floats, prior_sd: float) -> float:
    utilities: Floats = made.design @ parameters
    sums = _log_sums(made, utilities)
    likelihood = float(made.chosen @ utilities - made.weight @ sums)
    return likelihood - float(parameters @ parameters) / (2 * prior_sd**2)


def _point(made: Choices, parameters: Floats, prior_sd: float) -> _Point:
    utilities: Floats = made.design @ parameters
    sums = _log_sums(made, utilities)
    chances: Floats = np.exp(utilities - sums[made.choice])
    expected: Floats = made.weight[made.choice] * chances
    gradient: Floats = made.design.T @ (made.chosen - expected) - parameters / prior_sd**2
    prior = float(parameters @ parameters) / (2 * prior_sd**2)
    objective = float(made.chosen @ utilities - made.weight @ sums) - prior
    return _Point(parameters, objective, gradient, chances, expected)


def _information(made: Choices, point: _Point, prior_sd: float) -> LinearOperator:
    """The observed information at the point (the negative of the log posterior's Hessian) as its product with a
    vector: within each choice, the vector's values at its rows less their mean under the chances, times the rows'
    expected counts."""

    def times(vector: Floats) -> Floats:
        vector = np.ravel(vector)
        at_rows: Floats = made.design @ vector
        means = np.add.reduceat(point.chances * at_rows, made.starts) if len(made.starts) else np.zeros(0)
        product: Floats = made.design.T @ (point.expected * (at_rows - means[made.choice])) + vector / prior_sd**2
        return product

    return LinearOperator((made.size, made.size), matvec=times, dtype=np.float64)


def _newton_step(made: Choices, point: _Point, prior_sd: float) -> Floats:
    """The step that solves the information times the step = the gradient, by conjugate gradients, to a residual
    the smaller the nearer the optimum (so that the steps converge as fast as Newton's)."""
    if not made.size:
        return np.zeros(0)
    near = min(0.1, math.sqrt(float(np.linalg.norm(point.gradient))))
    diagonal = made.design.T @ (point.expected * (1 - point.chances)) + 1 / prior_sd**2  # near enough to guide
    step, _ = cg(_information(made, point, prior_sd), point.gradient, rtol=near, atol=0.0, M=_by_diagonal(diagonal))
    found: Floats = step
    return found


def _by_diagonal(diagonal: Floats) -> LinearOperator:
    """The conjugate gradients' preconditioner: a vector divided by the information's diagonal."""
    return LinearOperator((len(diagonal), len(diagonal)), matvec=lambda v: np.ravel(v) / diagonal, dtype=np.float64)


def _uncertainty(made: Choices, point: _Point, players: int, prior_sd: float) -> tuple[Floats, Floats]:
    """The strengths' standard errors and the effects' covariance at the optimum (a Laplace approximation): from
    the inverse of the whole information up to EXACT_UP_TO parameters; beyond, each strength's variance the inverse
    of its own curvature (its variance were the other parameters known: the diagonal approximation, a little
    narrower than the whole inverse's), and the effects' covariance their block of the whole inverse."""
    if made.size <= EXACT_UP_TO:
        information = _dense_information(made, point, prior_sd)
        covariance = np.asarray(np.linalg.inv(information) if made.size else information, dtype=np.float64)
        errors: Floats = np.sqrt(np.diag(covariance)[:players])
        return errors, covariance[players:, players:]
    diagonal = _information_diagonal(made, point, prior_sd)
    return 1 / np.sqrt(diagonal[:players]), _effect_covariance(made, point, players, prior_sd, diagonal)


def _by_choice(made: Choices, point: _Point) -> csr_array:
    """A row a choice, a column a parameter: the square root of the choice's weight times the chances of its rows
    with that parameter, summed (the design's rows, a choice's together, made one row)."""
    design = made.design
    values = np.repeat(np.sqrt(made.weight[made.choice]) * point.chances, np.diff(design.indptr))
    bounds = design.indptr[np.append(made.starts, design.shape[0])]
    found = csr_array((values, design.indices.copy(), bounds), shape=(len(made.starts), made.size))
    found.sum_duplicates()
    return found


def _dense_information(made: Choices, point: _Point, prior_sd: float) -> Floats:
    """The whole information matrix: the rows' expected counts on the diagonal less, for each choice, the outer
    product of its row of `_by_choice` (the covariance of which row it chooses)."""
    weighted = made.design.multiply(point.expected[:, None]).tocsr()
    spread = _by_choice(made, point)
    information: Floats = (made.design.T @ weighted - spread.T @ spread).toarray()
    return information + np.eye(made.size) / prior_sd**2


def _information_diagonal(made: Choices, point: _Point, prior_sd: float) -> Floats:
    spread = _by_choice(made, point)
    squares: Floats = np.asarray(spread.multiply(spread).sum(axis=0)).ravel()
    diagonal: Floats = made.design.T @ point.expected - squares + 1 / prior_sd**2
    return diagonal


def _effect_covariance(made: Choices, point: _Point, players: int, prior_sd: float, diagonal: Floats) -> Floats:
    """The effects' block of the inverse of the information: its columns of the effects, each solved by
    conjugate gradients."""
    information = _information(made, point, prior_sd)
    columns = []
    for effect in range(players, made.size):
        unit = np.zeros(made.size)
        unit[effect] = 1.0
        column, _ = cg(information, unit, rtol=SOLVED_TO, atol=0.0, M=_by_diagonal(diagonal))
        columns.append(column[players:])
    covariance: Floats = np.array(columns).reshape(made.size - players, made.size - players)
    return (covariance + covariance.T) / 2


def draw_places(utilities: Sequence[float], generator: np.random.Generator) -> list[int]:
    """A finishing order drawn from the Plackett-Luce model with these utilities: each seat's place (1 first).
    (The order of utilities each perturbed by a standard Gumbel variable is such a draw.)"""
    noisy = np.asarray(utilities, dtype=np.float64) + generator.gumbel(size=len(utilities))
    order = np.argsort(-noisy, kind="stable")
    places = np.empty(len(utilities), dtype=np.int64)
    places[order] = np.arange(1, len(utilities) + 1)
    return [int(place) for place in places]
