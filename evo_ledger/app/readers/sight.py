"""Who reads, and how much of a game's hidden facts that reader sees: every one (the recorder, the admin, and
everyone once a game that shows them at its end is over), a seat's own, or none (the public)."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from typing import Protocol

from evo_ledger.game.aggregate import Game


class Perspective(Protocol):
    """Who reads: `sees_all` for the recorder (and the admin), `seat` for a player's own hidden facts."""

    @property
    def sees_all(self) -> bool: ...

    @property
    def seat(self) -> str | None: ...


@dataclass(frozen=True)
class Seen:
    """A reader as the command line names one: the recorder, a seat, or the public."""

    sees_all: bool = False
    seat: str | None = None


RECORDER = Seen(sees_all=True)
PUBLIC = Seen()


def reader_named(name: str | None, players: Container[str]) -> Seen:
    """`--as SEAT` (or `public`); none given: the recorder."""
    if name is None:
        return RECORDER
    if name == "public":
        return PUBLIC
    if name not in players:
        raise ValueError(f"--as {name!r}: not a seat of the game (a player's name, or 'public')")
    return Seen(seat=name)


def reads_hidden(reader: Perspective, game: Game) -> bool:
    """What the rules keep hidden is shown to the recorder (and the admin), and to everyone once the game is over
    if the game, as it stands now, reveals it at its end (`Game.reveal_at_end`: on unless its recorder turned it
    off); otherwise a finished game is read as it was during play."""
    return reader.sees_all or (game.reveal_at_end and game.rules.outcome(game.state) is not None)


@dataclass(frozen=True)
class Sight:
    """What a reader may see of a game as it stands: every hidden fact (`everything`), or a seat's own (`seat`;
    None: the public's). Readers with the same sight of the same log are shown the same of it (`visibility`)."""

    everything: bool
    seat: str | None = None


def sight_of(reader: Perspective, game: Game) -> Sight:
    return Sight(everything=True) if reads_hidden(reader, game) else Sight(everything=False, seat=reader.seat)
