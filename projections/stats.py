"""Goodness of fit of a die: Pearson's chi-square against the die's faces, with its p-value. Pure arithmetic."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

# A face expected fewer times than this makes the chi-square approximation unreliable (Cochran's rule).
MIN_EXPECTED = 5.0
# Below this p-value the die is flagged: a fair die is flagged this rarely by chance.
SIGNIFICANCE = 0.01
NOT_ENOUGH_DATA = "not enough data"
FAIR = "consistent with a fair die"
LOADED = "unlikely from a fair die"


@dataclass(frozen=True)
class DieFit:
    rolls: int
    observed: dict[str, int]
    expected: dict[str, float]
    statistic: float | None
    degrees_of_freedom: int
    p_value: float | None
    verdict: str

    @property
    def flagged(self) -> bool:
        return self.verdict == LOADED


def die_fit(observed: Mapping[str, int], faces: Mapping[str, int]) -> DieFit:
    """`observed` counts per face against a die with `faces[face]` sides showing each face."""
    sides = sum(faces.values())
    rolls = sum(observed.get(face, 0) for face in faces)
    counts = {face: observed.get(face, 0) for face in faces}
    expected = {face: rolls * share / sides for face, share in faces.items()}
    freedom = len(faces) - 1
    if rolls == 0 or min(expected.values()) < MIN_EXPECTED:
        return DieFit(rolls, counts, expected, None, freedom, None, NOT_ENOUGH_DATA)
    statistic = sum((counts[face] - expected[face]) ** 2 / expected[face] for face in faces)
    p_value = chi_square_survival(statistic, freedom)
    return DieFit(rolls, counts, expected, statistic, freedom, p_value, LOADED if p_value < SIGNIFICANCE else FAIR)


def chi_square_survival(statistic: float, freedom: int) -> float:
    """P(X >= statistic) for a chi-square variable with `freedom` degrees of freedom.

    Written here in a few lines because scipy is far too heavy a dependency for one function."""
    return upper_regularised_gamma(freedom / 2, statistic / 2)


def upper_regularised_gamma(a: float, x: float) -> float:
    """Q(a, x): a series below a + 1, a continued fraction above (as in Numerical Recipes, 6.2)."""
    if x <= 0:
        return 1.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        denominator = a
        for _ in range(500):
            denominator += 1
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 500):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_prefix) * h)
