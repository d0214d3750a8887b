"""Small helpers for rulesets that put what their rules derived into sentences a player would say."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def spoken(name: Any) -> str:
    """An identifier as a player says it: `bony_plates` as `bony plates`."""
    return str(name).replace("_", " ")


def listed(items: Iterable[Any]) -> str:
    """`a`, `a and b`, `a, b and c`; `nothing` for none."""
    words = [spoken(item) for item in items]
    if not words:
        return "nothing"
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def counted(count: int, thing: str, things: str | None = None) -> str:
    """`1 dinosaur`, `2 dinosaurs`."""
    return f"{count} {thing if count == 1 else things or thing + 's'}"


def places(rows: Iterable[tuple[int, str, int, int]]) -> str:
    """Standings of MP and dinosaurs: `1 ann with 19 MP and 4 dinosaurs, 2 cat with ...`."""
    return ", ".join(
        f"{rank} {player} with {mp} MP and {counted(count, 'dinosaur')}" for rank, player, mp, count in rows
    )


def gains(awards: Mapping[str, int], totals: Mapping[str, int]) -> str:
    """`ann +2 (12), ben +3 (13)`: what each player gained, and now has."""
    return ", ".join(f"{player} +{gain} ({totals[player]})" for player, gain in awards.items())
