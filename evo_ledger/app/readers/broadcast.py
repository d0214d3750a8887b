"""A game broadcast with a delay: how much of it a reader without a token is shown, and from when. Every answer
about a game starts from the game as its reader may see it now (`latest_for`); answers that read the whole log
as it stands wait for the game's end (`check_live`)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING
from uuid import UUID

from evo_ledger.app.access import GameAccess
from evo_ledger.app.readers.reader import Reader
from evo_ledger.game.aggregate import Game

if TYPE_CHECKING:
    from evo_ledger.app.ledger import Ledger


class NotYetBroadcast(LookupError):
    """A game broadcast with a delay, to a reader without a token, before its first event is that old: it is told
    when the broadcast starts (`starts`) and how far behind the table it follows (`delay`), and nothing else."""

    code = "not_yet_broadcast"

    def __init__(self, game: Game, delay: float) -> None:
        self.starts = broadcast_starts(game, delay).isoformat()
        self.delay = delay
        told = f"game {game.id} is broadcast with a delay: none of it is that old yet (it starts at {self.starts})"
        super().__init__(told)


class DelayedBroadcast(PermissionError):
    """An answer that reads the whole log as it stands (an audit, a branch...), to a reader a broadcast's delay is
    for, before the game ends."""

    code = "delayed_broadcast"


def broadcast_horizon(ledger: Ledger, game: Game, minutes: float, now: datetime) -> int | None:
    """The last event a reader without a token may see of a game broadcast `minutes` behind the table, at `now`:
    the last one stored at least that long ago (0: none yet), asked of the store by time (`Queries.last_stored_by`:
    a few of the game's events are read, however long it is). None where nothing is held back: no delay, or the
    game is over (the delay ends with it)."""
    if minutes <= 0 or game.rules.outcome(game.state) is not None:
        return None
    return ledger.queries.last_stored_by(game, now - timedelta(minutes=minutes))


def broadcast_starts(game: Game, minutes: float) -> datetime:
    """When a reader without a token is first shown a game broadcast `minutes` behind the table: once its first
    event (its setup) is that old, as `broadcast_horizon` counts it."""
    return game.created_on + timedelta(minutes=minutes)


def with_access(reader: Reader, access: GameAccess | None) -> Reader:
    """The reader with the game's broadcast delay as `access` (read now) has it."""
    delay = access.broadcast_delay if access is not None else 0
    return reader if delay == reader.broadcast_delay else replace(reader, broadcast_delay=delay)


def held_back_to(reader: Reader, ledger: Ledger, game: Game) -> int | None:
    """The last event of `game` (as it stands) the reader may see now, where a broadcast's delay holds the rest
    back from it (0: none yet); None where nothing is held back (`broadcast_horizon`)."""
    if not reader.anonymous or not reader.broadcast_delay:
        return None
    return broadcast_horizon(ledger, game, reader.broadcast_delay, reader.clock())


def shown_version(reader: Reader, ledger: Ledger) -> int:
    """The game's last event the reader may see now (0: none yet, for a game broadcast with a delay)."""
    game = ledger.queries.game(reader.game_id)
    horizon = held_back_to(reader, ledger, game)
    return game.version if horizon is None else horizon


def latest_for(reader: Reader, ledger: Ledger) -> Game:
    """The game as the reader may see it now: as it stands, or, for a reader without a token of a game broadcast
    with a delay, as it stood that long ago until the game ends (NotYetBroadcast before its first event is that
    old). Every answer about a game starts here."""
    game = ledger.queries.game(reader.game_id)
    horizon = held_back_to(reader, ledger, game)
    if horizon is None or horizon == game.version:
        return game
    if horizon == 0:
        raise NotYetBroadcast(game, reader.broadcast_delay)
    return ledger.queries.game(reader.game_id, version=horizon)


def check_live(reader: Reader, ledger: Ledger, what: str) -> None:
    """Refuse `what` (audits, branches...: answers that read the whole log as it stands) to a reader a broadcast's
    delay is for, until the game ends."""
    if held_back_to(reader, ledger, ledger.queries.game(reader.game_id)) is not None:
        raise DelayedBroadcast(f"{what} of a game broadcast with a delay come once it ends")


def undone_by(ledger: Ledger, game_id: UUID, version: int) -> frozenset[int]:
    """The actions undone or corrected by the game's events up to `version` (a read table's rows as they stood
    then: those undone later were not yet)."""
    undone: set[int] = set()
    for event in ledger.queries.game_events(game_id, up_to=version):
        if isinstance(event, Game.ActionsUndone):
            undone.update(event.versions)
        elif isinstance(event, Game.ActionCorrected):
            undone.add(event.replaced)
    return frozenset(undone)


def rows_as_of(reader: Reader, ledger: Ledger) -> tuple[int, frozenset[int]] | None:
    """Where the read tables' rows of the game are cut for the reader: the last event a broadcast's delay shows it,
    and the actions undone by then; None where it reads the rows as they stand."""
    held = held_back_to(reader, ledger, ledger.queries.game(reader.game_id))
    return None if held is None else (held, undone_by(ledger, reader.game_id, held))
