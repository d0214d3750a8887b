"""The die statistic's chi-square upper tail agrees with a published table of the distribution's critical values,
on both sides of the point where its arithmetic changes from a series to a continued fraction."""

from __future__ import annotations

import pytest

from projections.stats import chi_square_survival

# (degrees of freedom, x, P(X >= x)), as a standard table of the chi-square distribution's upper critical values
# prints them, x to three decimals.
PUBLISHED = [
    (1, 3.841, 0.05),
    (1, 6.635, 0.01),
    (2, 0.103, 0.95),
    (2, 9.210, 0.01),
    (3, 7.815, 0.05),
    (4, 0.711, 0.95),
    (5, 1.145, 0.95),
    (5, 11.070, 0.05),
    (10, 3.940, 0.95),
    (10, 23.209, 0.01),
    (20, 31.410, 0.05),
    (30, 50.892, 0.01),
]


@pytest.mark.parametrize(("freedom", "x", "tail"), PUBLISHED)
def test_the_upper_tail_matches_the_published_table(freedom: int, x: float, tail: float) -> None:
    assert round(chi_square_survival(x, freedom), 3) == tail


def test_the_upper_tail_is_all_at_zero_and_none_far_out() -> None:
    assert chi_square_survival(0.0, 5) == 1.0
    assert chi_square_survival(1000.0, 5) < 1e-100
