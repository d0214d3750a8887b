"""What a caller of the people's list is told of the seats behind each person: a stable id's games are those whose
read tables' rows count for the caller (`private_rows_for`), and a stable id that sat only at games whose rows do
not count for it is not shown, nor its person, nor its games: it is told as an id no seat has. And which of a
competition's games seat the people its organiser keeps (`kept_by_organiser`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from evo_ledger.app.access import GameAccess
from evo_ledger.app.readers.callers import Caller, private_rows_for, sees_game


@dataclass(frozen=True)
class Seated:
    """A stable id's seats at one kind of game (those shown to every reader, or the others), as the read tables
    hold them: at how many games, the name it sat under at the latest, and when that game started (ISO 8601)."""

    games: int
    name: str
    started_at: str


@dataclass(frozen=True)
class SeatsOf:
    """A stable id's seats: at the games shown to every reader, and at the others (None: at none of that kind)."""

    shown: Seated | None = None
    others: Seated | None = None

    @property
    def in_use(self) -> bool:
        return self.shown is not None or self.others is not None


def seats_told(caller: Caller, seats: SeatsOf) -> Seated | None:
    """What the caller is told of a stable id's seats: all of them where private games' rows count for it, else
    those at the games shown to every reader; None where it is told of none."""
    if not private_rows_for(caller) or seats.others is None:
        return seats.shown
    if seats.shown is None:
        return seats.others
    latest = max(seats.shown, seats.others, key=lambda seated: seated.started_at)
    return Seated(seats.shown.games + seats.others.games, latest.name, latest.started_at)


def person_shown(caller: Caller, seats: Iterable[SeatsOf]) -> bool:
    """Whether a person is shown to the caller, from the seats of its stable ids (its own id among them): unless
    each of them that sat at a game sat only at games the caller is told of none of."""
    in_use = [held for held in seats if held.in_use]
    return not in_use or any(seats_told(caller, held) is not None for held in in_use)


def shown_to_everyone(seats: Iterable[SeatsOf]) -> bool:
    """Whether a person is shown to every reader, from the seats of its stable ids (`person_shown` to a caller who
    is not the admin)."""
    return person_shown(Caller(), seats)


def latest_name(caller: Caller, seats: Iterable[SeatsOf]) -> str | None:
    """The name the latest seat of the stable ids the caller is told of was taken under (None: it is told of
    none)."""
    told = [seated for held in seats if (seated := seats_told(caller, held)) is not None]
    return max(told, key=lambda seated: seated.started_at).name if told else None


def kept_by_organiser(access: GameAccess | None) -> bool:
    """Whether the people seated at a game of a competition are kept by its organiser: where every reader sees the
    game exists and it is not withdrawn."""
    return sees_game(access, None, admin=False) and not (access is not None and access.withdrawn)


def games_told(caller: Caller, games: Iterable[tuple[str, bool]]) -> int:
    """How many of the games (each its id, and whether it is shown to every reader) the caller is told of."""
    return len({game for game, shown in games if shown or private_rows_for(caller)})
