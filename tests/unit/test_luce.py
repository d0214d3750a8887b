"""The Plackett-Luce fit against a reference that holds the whole information matrix dense and solves each Newton
step and the covariance by inverting it, written here apart from the fit's own code: on a small set of results
with seat effects and shared places, and on a federation of 1,500 players drawn from a seed, the largest the dense
reference does in seconds. Both sets come from fixed seeds, so each check is the same on every run."""

from __future__ import annotations

import tracemalloc
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from bench.federation_results import SIZES, Federation, federation
from projections import luce
from projections.luce import PRIOR_SD, Fit, Seat

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Stage = tuple[Ints, Floats, Floats]
"""The choices of one width: each row's columns (player and covariate, `size` for none), whether chosen, and each
choice's weight."""

COVARIATE_OF = {size: sum(other - 1 for other in SIZES if other < size) for size in SIZES}
"""Where each table size's seats 2 and on are numbered among the covariates (seat 1 is the reference)."""


def seats_of(drawn: Federation) -> list[list[Seat]]:
    """The drawn games as the fit takes them: a covariate for each seat but the first, at each table size."""
    games = []
    for row, places, size in zip(drawn.players.tolist(), drawn.places.tolist(), drawn.sizes.tolist(), strict=True):
        games.append(
            [Seat(row[at], None if at == 0 else COVARIATE_OF[size] + at - 1, places[at]) for at in range(size)]
        )
    return games


def stages(games: Sequence[Sequence[Seat]], players: int, size: int) -> dict[int, Stage]:
    """Each game's choices, grouped by width: a place chosen among the seats not yet placed, players sharing a
    place each chosen from the same rest, nothing chosen among players sharing the last place."""
    found: dict[int, tuple[list[list[list[int]]], list[list[float]], list[float]]] = {}
    for game in games:
        ordered = sorted(game, key=lambda seat: seat.rank)
        for left, seat in enumerate(ordered):
            shared = sum(1 for other in ordered[left:] if other.rank == seat.rank)
            if (left and ordered[left - 1].rank == seat.rank) or shared == len(ordered) - left:
                continue
            rest = ordered[left:]
            columns, chosen, weights = found.setdefault(len(rest), ([], [], []))
            columns.append([[s.player, size if s.covariate is None else players + s.covariate] for s in rest])
            chosen.append([1.0 if s.rank == seat.rank else 0.0 for s in rest])
            weights.append(float(shared))
    return {
        width: (np.array(columns, dtype=np.int64), np.array(chosen), np.array(weights))
        for width, (columns, chosen, weights) in found.items()
    }


def derivatives(found: dict[int, Stage], parameters: Floats, prior_sd: float) -> tuple[Floats, Floats]:
    """The log posterior's gradient and the whole information matrix, dense."""
    size = len(parameters)
    extended = np.append(parameters, 0.0)  # the column `size`: no covariate
    gradient = np.zeros(size + 1)
    information = np.zeros((size + 1, size + 1))
    for width, (columns, chosen, weight) in found.items():
        utilities = extended[columns].sum(axis=2)
        chances = np.exp(utilities - utilities.max(axis=1, keepdims=True))
        chances /= chances.sum(axis=1, keepdims=True)
        expected = weight[:, None] * chances
        for part in (0, 1):
            np.add.at(gradient, columns[:, :, part], chosen - expected)
        spread = weight[:, None, None] * (np.eye(width) * chances[:, :, None] - chances[:, :, None] * chances[:, None])
        for first in (0, 1):
            for second in (0, 1):
                np.add.at(information, (columns[:, :, None, first], columns[:, None, :, second]), spread)
    gradient = gradient[:size] - parameters / prior_sd**2
    return gradient, information[:size, :size] + np.eye(size) / prior_sd**2


def dense_fit(games: Sequence[Sequence[Seat]], players: int, covariates: int) -> tuple[Floats, Floats]:
    """The reference: Newton's method on the dense information matrix from zero, and the inverse of that matrix at
    the optimum."""
    size = players + covariates
    found = stages(games, players, size)
    parameters = np.zeros(size)
    for _ in range(50):
        gradient, information = derivatives(found, parameters, PRIOR_SD)
        step = np.linalg.solve(information, gradient)
        parameters = parameters + step
        if np.max(np.abs(step)) < 1e-12:
            break
    else:
        pytest.fail("the reference did not converge")
    _, information = derivatives(found, parameters, PRIOR_SD)
    return parameters, np.asarray(np.linalg.inv(information), dtype=np.float64)


def fitted(games: Sequence[Sequence[Seat]], players: int, covariates: int) -> tuple[Floats, Floats, Floats]:
    """The fit's parameters, strengths' standard errors and effects' covariance, as arrays."""
    found: Fit = luce.fit(games, players, covariates)
    return (
        np.array(found.strengths + found.effects),
        np.array(found.strength_errors),
        np.array(found.effect_covariance),
    )


def check_exact(found: tuple[Floats, Floats, Floats], reference: tuple[Floats, Floats], players: int) -> None:
    parameters, errors, effects = found
    expected, covariance = reference
    assert parameters == pytest.approx(expected, abs=1e-9)
    assert errors == pytest.approx(np.sqrt(np.diag(covariance)[:players]), rel=1e-9)
    assert effects == pytest.approx(covariance[players:, players:], rel=1e-9, abs=1e-12)


def small_and_medium() -> list[tuple[Federation, int]]:
    return [(federation(400, players=12, clubs=2, seed=11), 12), (federation(10_000, 1_000, 20, seed=12), 1_000)]


@pytest.mark.parametrize(("drawn", "players"), small_and_medium(), ids=["small", "medium"])
def test_the_fit_and_its_intervals_are_the_dense_references_up_to_the_exact_size(
    drawn: Federation, players: int
) -> None:
    games = seats_of(drawn)
    covariates = sum(size - 1 for size in SIZES)
    assert players + covariates <= luce.EXACT_UP_TO
    check_exact(fitted(games, players, covariates), dense_fit(games, players, covariates), players)


@pytest.mark.parametrize(("drawn", "players"), small_and_medium(), ids=["small", "medium"])
def test_beyond_the_exact_size_the_effects_intervals_hold_and_the_strengths_are_a_little_narrower(
    drawn: Federation, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past EXACT_UP_TO parameters (here set to none), the same fit; the effects' covariance their block of the
    inverse, solved by conjugate gradients; each strength's standard error from its own curvature alone, never
    wider than the whole inverse's, and on the medium federation at least 0.65 of it (0.9 for most players)."""
    games = seats_of(drawn)
    covariates = sum(size - 1 for size in SIZES)
    expected, covariance = dense_fit(games, players, covariates)
    monkeypatch.setattr(luce, "EXACT_UP_TO", 0)
    parameters, errors, effects = fitted(games, players, covariates)
    assert parameters == pytest.approx(expected, abs=1e-9)
    exact = covariance[players:, players:]
    assert effects == pytest.approx(exact, rel=1e-5, abs=1e-6 * float(np.max(np.diag(exact))))
    _, information = derivatives(stages(games, players, players + covariates), expected, PRIOR_SD)
    assert errors == pytest.approx(1 / np.sqrt(np.diag(information)[:players]), rel=1e-9)
    narrower = errors / np.sqrt(np.diag(covariance)[:players])
    assert np.all(narrower <= 1 + 1e-12)
    if players > 100:
        assert narrower.min() >= 0.65 and np.median(narrower) >= 0.9


def test_a_fit_of_many_more_players_than_the_exact_size_holds_no_matrix_over_every_pair() -> None:
    """30,000 results among 12,000 players: the fit's peak memory is a small part of a dense matrix over its
    parameters (1.2 GB), and the strengths follow the hidden ones."""
    drawn = federation(30_000, 12_000, 240, seed=13)
    made = luce.choices([[Seat(s.player, None, s.rank) for s in game] for game in seats_of(drawn)], 12_000)
    tracemalloc.start()
    try:
        found = luce.fit_choices(made, 12_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 12_000 * 12_000 * 8 / 20
    assert np.corrcoef(found.strengths, drawn.strengths)[0, 1] > 0.7
