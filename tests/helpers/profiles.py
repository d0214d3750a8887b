"""Property and fuzz tests sized by a named profile. `quick` is a few seeded examples, run in the quick tier; `full`
is the rest of today's count in batches, marked slow, run by the whole suite. The profiles share no seed, so the
whole suite checks each seed once and the quick tier's examples are among them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

QUICK = "quick"
FULL = "full"


@dataclass(frozen=True)
class Seeds:
    """The seeds one test of a profile plays."""

    profile: str
    seeds: range

    def __len__(self) -> int:
        return len(self.seeds)

    def __iter__(self) -> Iterator[int]:
        return iter(self.seeds)


def seeded(total: int, batches: int, quick: int, reason: str) -> list[Any]:
    """Seeds 0 to `total`: the first `quick` of them the quick profile, the others split into `batches` slow
    batches of the full profile, marked with `reason`."""
    rest = range(quick, total)
    size = -(-len(rest) // batches)
    full = [rest[start : start + size] for start in range(0, len(rest), size)]
    slow = pytest.mark.slow(reason=reason)
    return [
        pytest.param(Seeds(QUICK, range(quick)), id=QUICK),
        *(pytest.param(Seeds(FULL, seeds), id=f"{FULL}-{n}", marks=slow) for n, seeds in enumerate(full, 1)),
    ]
